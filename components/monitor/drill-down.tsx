"use client";
/** One MID's month opened from the Monitor: the ratio day by day, and its chargebacks by BIN and bank. Loaded when first opened. */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import type { MonitorRow } from "@/lib/features/monitor/load";
import type { DrillAnswer, DrillPart } from "@/lib/features/monitor/drill";
import { levelSentence, numeratorNoun } from "@/lib/features/monitor/words";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { LONG_POLL_MS } from "@/lib/report/client/api";
import { describeWaiting } from "@/lib/report/client/status";
import { Providers } from "@/components/providers";
import { cn } from "@/components/ui/cn";
import { lazyPart } from "@/components/ui/lazy-part";
import { StatusBanner } from "@/components/ui/status-banner";
import { count, midName, money, monthLabel, pct, type OkAnswer } from "./monitor-body";
import { useBoxWidth } from "@/components/report/charts/use-box-width";

// Drawn only once the box's width is measured in the browser, so never on the server.
const TrendChart = lazyPart(() => import("./trend-chart").then((m) => m.default), <p className="text-sm text-slate-700">Loading the chart…</p>);

function PartsTable({ title, parts, dimension }: { title: string; parts: { top: DrillPart[]; rest: DrillPart | null }; dimension: string }) {
  const rows = parts.rest ? [...parts.top, parts.rest] : parts.top;
  // A long bank name with its numbers can be wider than a small phone: the table scrolls, not the page.
  return (
    <div tabIndex={0} role="region" aria-label={`${title} (scrolls sideways)`} className="min-w-0 overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="py-1 text-left font-medium">{title}</caption>
        <thead className="bg-slate-100 text-left">
          <tr>
            <th scope="col" className="px-2 py-1">{dimension}</th>
            <th scope="col" className="px-2 py-1 text-right">Chargebacks</th>
            <th scope="col" className="px-2 py-1 text-right">Amount</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={3} className="px-2 py-2 text-slate-700">No chargebacks this month.</td>
            </tr>
          ) : (
            rows.map((p, i) => (
              <tr key={p.key} className={cn("border-t border-slate-200", parts.rest && i === rows.length - 1 && "italic")}>
                <th scope="row" className="px-2 py-1 text-left font-normal">{p.key}</th>
                <td className="px-2 py-1 text-right tabular-nums">{count(p.chargebacks)}</td>
                <td className="px-2 py-1 text-right tabular-nums">{money(p.cents)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/** The drill-down's reports while they wait: where they stand in the queue, in Explore's words. */
function DrillWaiting({ statuses, at, timeZone }: { statuses: Extract<DrillAnswer, { kind: "pending" }>["statuses"]; at: number; timeZone: string }) {
  const v = describeWaiting(statuses, at, timeZone);
  return <StatusBanner tone={v.tone} title={v.title} detail={v.detail} busy={v.busy} label="Drill-down status" />;
}

interface DrillProps {
  answer: OkAnswer;
  row: MonitorRow;
  onClose: () => void;
  canExplore: boolean;
  timeZone: string;
}

/** The Monitor's page loads no react-query; the drill-down brings it, with the browser's one client. */
export default function DrillDown(props: DrillProps) {
  return (
    <Providers>
      <DrillDownPanel {...props} />
    </Providers>
  );
}

const STARTING_DRILL = { title: "Starting", detail: "Asking for this MID's days, BINs and banks…" };

function DrillDownPanel({ answer, row, onClose, canExplore, timeZone }: DrillProps) {
  const program = answer.programs.find((p) => p.id === row.programId)!;
  const params = new URLSearchParams({ program: row.programId, gateway: String(row.gatewayId), brand: row.cardBrand, month: row.month });
  const drill = useQuery({
    queryKey: ["monitor-drill", params.toString()],
    // Held on the server as long as Explore's requests are, so the queue place and estimate stay current.
    queryFn: ({ signal }) => apiFetch<DrillAnswer>(`/api/monitor/drill?${params.toString()}&wait=${LONG_POLL_MS}`, { signal }),
    refetchInterval: (q) => (q.state.data?.kind === "pending" ? 1 : false),
    refetchOnWindowFocus: false,
    retry: false,
  });
  const [box, boxWidth] = useBoxWidth<HTMLElement>();
  const heading = useRef<HTMLHeadingElement>(null);
  const key = params.toString();
  // The drill-down opens above the tables: bring it into view and move focus to it.
  useEffect(() => {
    heading.current?.scrollIntoView({ block: "start" });
    heading.current?.focus({ preventScroll: true });
  }, [key]);
  // The chart follows its box, and is never wider than a narrow phone's box.
  const width = boxWidth === undefined ? null : Math.max(0, Math.min(900, boxWidth - 8));
  const d = drill.data;
  return (
    <section aria-labelledby="drill-heading" className="rounded-lg border border-slate-300 bg-white p-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id="drill-heading" ref={heading} tabIndex={-1} className="text-lg font-semibold">
          {midName(row)}, {row.cardBrand}, {monthLabel(row.month)}
        </h2>
        <button type="button" onClick={onClose} className="rounded border border-slate-400 px-3 py-1 text-sm">
          Close
        </button>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        {program.name}: {count(row.actual.numerator)} ÷ {count(row.actual.denominator)} = {pct(row.actual.ratio)}. {levelSentence(program, row.actual, row.lowest)}
      </p>
      {drill.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-800">{drill.error instanceof Error ? drill.error.message : "The drill-down could not be loaded."}</p>
      ) : !d || d.kind === "pending" ? (
        <div className="mt-2">
          {d ? (
            <DrillWaiting statuses={d.statuses} at={drill.dataUpdatedAt} timeZone={timeZone} />
          ) : (
            <StatusBanner tone="progress" busy title={STARTING_DRILL.title} detail={STARTING_DRILL.detail} label="Drill-down status" />
          )}
        </div>
      ) : (
        <div className="mt-3 flex flex-col gap-4">
          <figure ref={box} className="min-w-0">
            <figcaption className="text-sm text-slate-700">
              The ratio to date, day by day (the last day&apos;s is the table&apos;s ratio), with the thresholds in force for {monthLabel(d.month.month)} dashed: a
              level needs its ratio and its minimum count of {numeratorNoun(program)}.
            </figcaption>
            {width ? <TrendChart trend={d.trend} thresholds={d.thresholds} noun={numeratorNoun(program)} width={width} /> : null}
          </figure>
          <div className="grid gap-4 md:grid-cols-2">
            <PartsTable title="Chargebacks by BIN (the 10 largest, then the rest)" parts={d.byBin} dimension="BIN" />
            <PartsTable title="Chargebacks by issuing bank (the 10 largest, then the rest)" parts={d.byBank} dimension="Issuing bank" />
          </div>
          {canExplore ? (
          <p className="text-sm">
            The same numbers in Explore:{" "}
            <Link href={d.links.byDay} className="text-blue-800 underline underline-offset-2">by day</Link>,{" "}
            <Link href={d.links.byBin} className="text-blue-800 underline underline-offset-2">by BIN</Link>,{" "}
            <Link href={d.links.byBank} className="text-blue-800 underline underline-offset-2">by issuing bank</Link>.
          </p>
          ) : null}
        </div>
      )}
    </section>
  );
}

