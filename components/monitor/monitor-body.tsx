/**
 * The Monitor's tables (programme ratios per MID and card brand, alert-aware disputes) for one
 * answer: no state and no fetching, so the shared Monitor draws them on the server with no script,
 * and the Monitor page inside its client container.
 */
import { midName as nameMid } from "@/lib/report/mid-name";
import type { ReactNode } from "react";
import { formatValue } from "@/lib/report/metrics/format";
import type { MonitorAnswer, MonitorRow } from "@/lib/features/monitor/load";
import type { Program } from "@/lib/features/monitor/definitions";
import { STATUS_LABELS, type StatusLevel } from "@/lib/features/monitor/status";
import type { DisputeRow, Measured } from "@/lib/features/monitor/evaluate";
import { StatusBanner } from "@/components/ui/status-banner";
import { cn } from "@/components/ui/cn";

export type OkAnswer = Extract<MonitorAnswer, { kind: "ok" }>;

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

export const pct = (r: number | null) => formatValue(r, "percent");
export const count = (n: number) => formatValue(Math.round(n), "count");
export const money = (cents: number) => formatValue(cents / 100, "currency");
/** A MID as every surface names it (lib/report/mid-name.ts): "Wells 02 (#2)". */
export const midName = (r: { gatewayId: number; gatewayName: string | null }) => nameMid(r.gatewayId, r.gatewayName);

export function monthLabel(month: string): string {
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
          {toDate ? ` to date (${month.start} to ${month.end}); the projection runs the pace so far to the month's end.` : "."} Sales are every approved
          attempt on the MID, cascades included.
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

/**
 * The Monitor's tables for one answer. `onOpen` null: no drill-down (a share visitor has no account
 * to drill with); `drill`: the open drill-down, drawn above the tables.
 */
export function MonitorBody({ answer, onOpen, drill = null }: { answer: OkAnswer; onOpen: ((r: MonitorRow) => void) | null; drill?: ReactNode }) {
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
      {drill}
      {shown.map((m) => (
        <section key={m.month} aria-labelledby={`month-${m.month}`} className="flex flex-col gap-3">
          <h2 id={`month-${m.month}`} className="text-lg font-semibold">
            {monthLabel(m.month)}
            {m.daysElapsed < m.daysInMonth ? " (to date)" : ""}
          </h2>
          {answer.programs.map((p) => (
            <ProgramTable key={p.id} program={p} month={m} rows={answer.rows.filter((r) => r.month === m.month && r.programId === p.id)} onOpen={onOpen} />
          ))}
          <DisputesTable rows={answer.disputes.filter((d) => d.month === m.month)} month={m.month} alertCost={answer.alertCost} />
        </section>
      ))}
    </>
  );
}
