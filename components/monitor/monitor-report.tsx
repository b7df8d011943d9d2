"use client";
import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { formatValue } from "@/lib/metrics/format";
import type { MonitorAnswer, MonitorRow, MonthStatus } from "@/lib/monitor/load";
import type { DrillAnswer, DrillPart } from "@/lib/monitor/drill";
import { STATUS_LABELS, type Program, type StatusLevel } from "@/lib/programs/definitions";
import type { DisputeRow, Measured } from "@/lib/programs/evaluate";
import { apiFetch } from "@/lib/report-client/api";
import { describeStatus, type ReportPhase } from "@/lib/report-client/status";
import { SaveReportButton } from "@/components/saved/save-report-button";
import { EmptyState } from "@/components/ui/empty-state";
import { StatusBanner } from "@/components/ui/status-banner";
import { cn } from "@/components/ui/cn";

/** How long one request waits on the server for the months still being fetched. */
const WAIT_MS = 8_000;

function phaseOf(s: MonthStatus["status"]): ReportPhase {
  if (s.state === "done") return { kind: "done", result: { ...s.result, data: [] } };
  if (s.state === "failed") return { kind: "failed", error: new Error(`${s.error.message} ${s.error.action}`) };
  if (s.state === "cancelled") return { kind: "cancelled" };
  return { kind: "running", progress: { jobId: null, status: s, at: Date.now() } };
}

const LEVEL_STYLE: Record<StatusLevel, string> = {
  ok: "border-slate-300 bg-white text-slate-800",
  monitored: "border-amber-400 bg-amber-50 text-amber-950",
  excessive: "border-red-400 bg-red-50 text-red-900",
  high_excessive: "border-red-700 bg-red-700 text-white",
};

function StatusBadge({ level, projected }: { level: StatusLevel; projected?: boolean }) {
  return (
    <span className={cn("inline-block rounded border px-2 py-0.5 text-xs font-semibold whitespace-nowrap", LEVEL_STYLE[level])}>
      {level === "ok" ? "OK" : STATUS_LABELS[level]}
      {projected ? " (projected)" : ""}
    </span>
  );
}

const pct = (r: number | null) => formatValue(r, "percent");
const count = (n: number) => formatValue(Math.round(n), "count");
const money = (cents: number) => formatValue(cents / 100, "currency");
const midName = (r: { gatewayId: number; gatewayName: string | null }) => (r.gatewayName ? `${r.gatewayName} (#${r.gatewayId})` : `#${r.gatewayId}`);

function monthLabel(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
}

/** "1.00 % and 100": the lowest threshold in force, or the one reached. */
function thresholdText(t: { ratio: number; minCount: number } | null): string {
  return t ? `${pct(t.ratio)} and ${count(t.minCount)}` : "—";
}

function Ratio({ m, label }: { m: Measured; label: string }) {
  return (
    <span title={`${label}: ${count(m.numerator)} ÷ ${count(m.denominator)}`} className="cursor-help underline decoration-slate-400 decoration-dotted underline-offset-4">
      {pct(m.ratio)}
    </span>
  );
}

function ProgramTable({
  program,
  month,
  rows,
  onOpen,
}: {
  program: Program;
  month: { month: string; start: string; end: string; daysElapsed: number; daysInMonth: number };
  rows: MonitorRow[];
  onOpen: ((r: MonitorRow) => void) | null;
}) {
  const toDate = month.daysElapsed < month.daysInMonth;
  const numeratorLabel = program.numerator.alertTypes.length > 0 ? `Disputes (chargebacks + ${program.numerator.alertTypes.join(", ")} alerts)` : "Chargebacks";
  const salesLabel = program.denominator.month === "preceding" ? "Sales (month before)" : "Sales";
  return (
    <div className="overflow-x-auto rounded-md border border-slate-300 bg-white" role="region" aria-label={`${program.name}, ${monthLabel(month.month)} (scrollable)`} tabIndex={0}>
      <table className="w-full text-sm">
        <caption className="px-3 py-2 text-left text-sm text-slate-700">
          {program.name}: {numeratorLabel.toLowerCase()} ÷ {salesLabel.toLowerCase()}, {monthLabel(month.month)}
          {toDate ? ` to date (${month.start} to ${month.end}); the projection runs the pace so far to the month's end.` : "."}
          {program.caveat ? ` ${program.caveat}` : ""}
        </caption>
        <thead className="bg-slate-100 text-left">
          <tr>
            <th scope="col" className="px-3 py-2">MID</th>
            <th scope="col" className="px-3 py-2 text-right">{numeratorLabel.split(" (")[0]}</th>
            <th scope="col" className="px-3 py-2 text-right">{salesLabel}</th>
            <th scope="col" className="px-3 py-2 text-right">Ratio</th>
            <th scope="col" className="px-3 py-2">Status</th>
            <th scope="col" className="px-3 py-2">Lowest threshold</th>
            {toDate ? <th scope="col" className="px-3 py-2">Projection to month end</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={toDate ? 7 : 6} className="px-3 py-3 text-slate-700">
                No {program.cardBrand} sales or disputes this month.
              </td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={`${r.gatewayId}`} className={cn("border-t border-slate-200", r.actual.level !== "ok" && "bg-red-50/60")}>
                <th scope="row" className="px-3 py-2 text-left font-medium">
                  {onOpen ? (
                    <button type="button" className="text-blue-800 underline underline-offset-2" onClick={() => onOpen(r)}>
                      {midName(r)}
                    </button>
                  ) : (
                    midName(r)
                  )}
                </th>
                <td className="px-3 py-2 text-right tabular-nums">{count(r.actual.numerator)}</td>
                <td className="px-3 py-2 text-right tabular-nums">{count(r.actual.denominator)}</td>
                <td className="px-3 py-2 text-right tabular-nums">
                  <Ratio m={r.actual} label={numeratorLabel} />
                </td>
                <td className="px-3 py-2">
                  <StatusBadge level={r.actual.level} />
                </td>
                <td className="px-3 py-2 whitespace-nowrap">{thresholdText(r.actual.threshold ?? r.lowest)}</td>
                {toDate ? (
                  <td className="px-3 py-2 whitespace-nowrap">
                    {r.projected ? (
                      <>
                        <Ratio m={r.projected} label={`Projected ${numeratorLabel.toLowerCase()}`} /> <StatusBadge level={r.projected.level} projected />
                      </>
                    ) : (
                      "—"
                    )}
                  </td>
                ) : null}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

function DisputesTable({ rows, month, alertCost }: { rows: DisputeRow[]; month: string; alertCost: Record<"ETHOCA" | "CDRN" | "RDR", number> }) {
  const types = ["ETHOCA", "CDRN", "RDR"] as const;
  return (
    <div className="overflow-x-auto rounded-md border border-slate-300 bg-white" role="region" aria-label={`Alert-aware disputes, ${monthLabel(month)} (scrollable)`} tabIndex={0}>
      <table className="w-full text-sm">
        <caption className="px-3 py-2 text-left text-sm text-slate-700">
          Chargebacks (by chargeback date) beside alerts (by alert date), {monthLabel(month)}. Caught: alerts ÷ (alerts + chargebacks). Alert cost
          at {types.map((t) => `${t} ${formatValue(alertCost[t], "currency")}`).join(", ")} each, against the disputed amounts the alerts kept
          from becoming chargebacks.
        </caption>
        <thead className="bg-slate-100 text-left">
          <tr>
            <th scope="col" className="px-3 py-2">MID</th>
            <th scope="col" className="px-3 py-2">Card brand</th>
            <th scope="col" className="px-3 py-2 text-right">Chargebacks</th>
            {types.map((t) => (
              <th key={t} scope="col" className="px-3 py-2 text-right">
                {t}
              </th>
            ))}
            <th scope="col" className="px-3 py-2 text-right">Caught by an alert</th>
            <th scope="col" className="px-3 py-2 text-right">Alert cost</th>
            <th scope="col" className="px-3 py-2 text-right">Prevented</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.gatewayId}|${r.cardBrand}`} className="border-t border-slate-200">
              <th scope="row" className="px-3 py-2 text-left font-medium">{midName(r)}</th>
              <td className="px-3 py-2">{r.cardBrand}</td>
              <td className="px-3 py-2 text-right tabular-nums whitespace-nowrap">
                {count(r.chargebacks)} · {money(r.chargebackCents)}
              </td>
              {types.map((t) => (
                <td key={t} className="px-3 py-2 text-right tabular-nums whitespace-nowrap">
                  {count(r.alerts[t].count)} · {money(r.alerts[t].cents)}
                </td>
              ))}
              <td className="px-3 py-2 text-right tabular-nums">{pct(r.caughtShare)}</td>
              <td className="px-3 py-2 text-right tabular-nums">{money(r.alertCostCents)}</td>
              <td className="px-3 py-2 text-right tabular-nums">{money(r.preventedCents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type OkAnswer = Extract<MonitorAnswer, { kind: "ok" }>;

const TrendChart = dynamic(() => import("./trend-chart"), { ssr: false, loading: () => <p className="text-sm text-slate-700">Loading the chart…</p> });

function PartsTable({ title, parts, dimension }: { title: string; parts: { top: DrillPart[]; rest: DrillPart | null }; dimension: string }) {
  const rows = parts.rest ? [...parts.top, parts.rest] : parts.top;
  return (
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
  );
}

function DrillDown({ answer, row, onClose, canExplore }: { answer: OkAnswer; row: MonitorRow; onClose: () => void; canExplore: boolean }) {
  const program = answer.programs.find((p) => p.id === row.programId)!;
  const params = new URLSearchParams({ program: row.programId, gateway: String(row.gatewayId), brand: row.cardBrand, month: row.month });
  const drill = useQuery({
    queryKey: ["monitor-drill", params.toString()],
    queryFn: ({ signal }) => apiFetch<DrillAnswer>(`/api/monitor/drill?${params.toString()}&wait=${WAIT_MS}`, { signal }),
    refetchInterval: (q) => (q.state.data?.kind === "pending" ? 1 : false),
    refetchOnWindowFocus: false,
    retry: false,
  });
  const [box, setBox] = useState<HTMLElement | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const key = params.toString();
  // The drill-down opens above the tables: bring it into view and move focus to it.
  useEffect(() => {
    heading.current?.scrollIntoView({ block: "start" });
    heading.current?.focus({ preventScroll: true });
  }, [key]);
  const width = Math.max(280, Math.min(900, (box?.clientWidth ?? 600) - 8));
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
        {program.name}: {count(row.actual.numerator)} ÷ {count(row.actual.denominator)} = {pct(row.actual.ratio)} —{" "}
        {row.actual.level === "ok" ? "below every threshold in force" : STATUS_LABELS[row.actual.level].toLowerCase()}.
      </p>
      {drill.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-800">{drill.error instanceof Error ? drill.error.message : "The drill-down could not be loaded."}</p>
      ) : !d || d.kind === "pending" ? (
        <p role="status" className="mt-2 text-sm text-slate-700">Fetching this MID&apos;s days, BINs and banks…</p>
      ) : (
        <div className="mt-3 flex flex-col gap-4">
          <figure ref={setBox} className="min-w-0">
            <figcaption className="text-sm text-slate-700">
              The ratio to date, day by day (the last day&apos;s is the table&apos;s ratio), with the thresholds in force for {monthLabel(d.month.month)} dashed.
            </figcaption>
            <TrendChart trend={d.trend} thresholds={d.thresholds} width={width} />
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

/** The Monitor: fetches the four monthly reports through the dashboard (long-polling while they run). */
export function MonitorReport({ timeZone, canExplore }: { timeZone: string; canExplore: boolean }) {
  const query = useQuery({
    queryKey: ["monitor"],
    queryFn: ({ signal }) => apiFetch<MonitorAnswer>(`/api/monitor?wait=${WAIT_MS}`, { signal }),
    refetchInterval: (q) => (q.state.data?.kind === "pending" ? 1 : false),
    refetchOnWindowFocus: false,
    retry: false,
  });
  const [open, setOpen] = useState<MonitorRow | null>(null);
  const answer = query.data;

  if (query.isError) {
    return (
      <EmptyState tone="error" title="The Monitor could not be loaded">
        {query.error instanceof Error ? query.error.message : "Try again in a minute."}
      </EmptyState>
    );
  }
  const statuses = answer?.months ?? [];
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2" aria-label="Monthly reports">
        {statuses.length === 0 ? <StatusBanner tone="progress" title="Starting" detail="Asking for the monthly reports…" busy /> : null}
        {statuses.map((m) => {
          const v = describeStatus(phaseOf(m.status), timeZone);
          return <StatusBanner key={m.month} tone={v.tone} title={`${monthLabel(m.month)}: ${v.title}`} detail={v.detail} busy={v.busy} label={`${monthLabel(m.month)} status`} />;
        })}
      </div>
      {answer?.kind === "ok" ? (
        <>
          <div className="flex flex-wrap justify-end gap-2">
            <SaveReportButton page="monitor" />
          </div>
          <MonitorBody answer={answer} open={open} setOpen={setOpen} canExplore={canExplore} />
        </>
      ) : null}
    </div>
  );
}

/** The Monitor's tables for one answer; `setOpen` null: no drill-down (a share visitor has no account to drill with). */
export function MonitorBody({
  answer,
  open,
  setOpen,
  canExplore = false,
}: {
  answer: OkAnswer;
  open: MonitorRow | null;
  setOpen: ((r: MonitorRow | null) => void) | null;
  /** Explore is for analysts: viewers get no links into it. */
  canExplore?: boolean;
}) {
  const shown = answer.months.filter((m) => !m.salesOnly);
  const current = shown[0]!;
  const breached = answer.rows.filter((r) => r.month === current.month && (r.actual.level !== "ok" || (r.projected && r.projected.level !== "ok")));
  // Last month's complete figures are the ones a programme counts: a breach there is said as loudly.
  const last = shown[1];
  const lastBreached = last ? answer.rows.filter((r) => r.month === last.month && r.actual.level !== "ok") : [];
  return (
    <>
      {breached.length > 0 ? (
        <StatusBanner
          tone="error"
          title={`${breached.length} MID${breached.length === 1 ? "" : "s"} at or heading over a threshold in ${monthLabel(current.month)}`}
          detail={breached.map((r) => `${midName(r)} ${r.cardBrand}: ${pct(r.actual.ratio)} (${r.actual.level === "ok" ? `projected ${STATUS_LABELS[r.projected!.level].toLowerCase()}` : STATUS_LABELS[r.actual.level].toLowerCase()})`).join("; ")}
          busy={false}
          label="Breaches"
        />
      ) : (
        <StatusBanner tone="success" title={`No MID at or heading over a threshold in ${monthLabel(current.month)}`} busy={false} label="Breaches" />
      )}
      {last && lastBreached.length > 0 ? (
        <StatusBanner
          tone="error"
          title={`${lastBreached.length} MID${lastBreached.length === 1 ? "" : "s"} over a threshold in ${monthLabel(last.month)}`}
          detail={lastBreached.map((r) => `${midName(r)} ${r.cardBrand}: ${pct(r.actual.ratio)} (${STATUS_LABELS[r.actual.level].toLowerCase()})`).join("; ")}
          busy={false}
          label={`Breaches in ${monthLabel(last.month)}`}
        />
      ) : null}
      {open && setOpen ? <DrillDown answer={answer} row={open} onClose={() => setOpen(null)} canExplore={canExplore} /> : null}
      {shown.map((m) => (
        <section key={m.month} aria-labelledby={`month-${m.month}`} className="flex flex-col gap-3">
          <h2 id={`month-${m.month}`} className="text-lg font-semibold">
            {monthLabel(m.month)}
            {m.daysElapsed < m.daysInMonth ? " (to date)" : ""}
          </h2>
          {answer.programs.map((p) => (
            <ProgramTable key={p.id} program={p} month={m} rows={answer.rows.filter((r) => r.month === m.month && r.programId === p.id)} onOpen={setOpen} />
          ))}
          <DisputesTable rows={answer.disputes.filter((d) => d.month === m.month)} month={m.month} alertCost={answer.alertCost} />
        </section>
      ))}
    </>
  );
}
