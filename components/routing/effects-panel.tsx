"use client";
/**
 * Measured after each applied version (lib/features/routing/effects.ts): the BINs and banks its rules changed,
 * and their approval and chargeback rates in equal windows of full days before and after the apply
 * day, as ratios of sums with their counts; "not enough data" with the counts when a window is short.
 * Asked for on demand (./on-demand-report.tsx): the figures come from reports that spend the shared quota.
 */
import { formatChange, formatValue } from "@/lib/report/metrics/format";
import type { EffectsPending, KindEffect, RoutingEffectsAnswer, VersionEffect, WindowFigures } from "@/lib/features/routing/effects";
import { cn } from "@/components/ui/cn";
import { ScrollTable } from "./live-tables";
import { OnDemandReport, type OnDemandWords } from "./on-demand-report";

const th = "px-3 py-2 text-left font-medium whitespace-nowrap";
const num = "px-3 py-1.5 text-right tabular-nums whitespace-nowrap";
const td = "px-3 py-1.5 align-top";

const KIND_WORDS = { BIN: "BIN rules", BANK: "Bank rules" } as const;

function traffic(e: KindEffect): string {
  const list = e.kind === "BIN" ? e.values.map((v) => `${v}…`) : e.values;
  return `${list.join(", ")}${e.omitted > 0 ? ` and ${e.omitted} more` : ""}`;
}

function WindowRow({ e, w, label, change }: { e: KindEffect; w: WindowFigures; label: string; change: boolean }) {
  return (
    <tr className="border-t border-slate-100">
      <td className={cn(td, "whitespace-nowrap")}>
        {label} <span className="text-slate-700">{w.start_date === w.end_date ? w.start_date : `${w.start_date} to ${w.end_date}`}</span>
      </td>
      <td className={num}>{formatValue(w.attempts, "count")}</td>
      <td className={num} title={`${formatValue(w.approvals, "count")} approvals ÷ ${formatValue(w.attempts, "count")} attempts`}>
        {formatValue(w.approval_rate, "percent")} <span className="text-xs text-slate-700">({formatValue(w.approvals, "count")})</span>
      </td>
      <td className={num} title={`${formatValue(w.cb_count, "count")} chargebacks ÷ ${formatValue(w.approvals, "count")} approvals`}>
        {formatValue(w.cb_rate, "percent")} <span className="text-xs text-slate-700">({formatValue(w.cb_count, "count")})</span>
      </td>
      <td className={num}>
        {change ? (e.enough ? `${formatChange((e.approval_change_pp ?? Number.NaN) / 100, "points")} · ${formatChange((e.cb_change_pp ?? Number.NaN) / 100, "points")}` : "not enough data") : ""}
      </td>
    </tr>
  );
}

function VersionCard({ v, minAttempts }: { v: VersionEffect; minAttempts: number }) {
  return (
    <li className="rounded-md border border-slate-300 bg-white p-3 text-sm" data-version={v.version}>
      <p className="font-medium">
        Version {v.version}, applied {v.applied_date}
        {v.restored_from !== null ? ` (restores v${v.restored_from})` : ""}
      </p>
      <p className="text-slate-800">
        By {v.author}: {v.reason}
      </p>
      {v.note ? <p className="mt-1 text-slate-700">{v.note}</p> : null}
      {v.effects.map((e) => (
        <div key={e.kind} className="mt-2 flex flex-col gap-1">
          <p>
            <span className="font-medium">{KIND_WORDS[e.kind]}:</span> {traffic(e)}
          </p>
          <ScrollTable label={`Version ${v.version}, ${KIND_WORDS[e.kind]}: before and after`}>
            <table className="w-full text-sm" aria-label={`Version ${v.version}, ${KIND_WORDS[e.kind]}: before and after`}>
              <thead className="bg-slate-100">
                <tr>
                  <th scope="col" className={th}>Window</th>
                  <th scope="col" className={cn(th, "text-right")}>Attempts</th>
                  <th scope="col" className={cn(th, "text-right")}>Approval rate (approvals)</th>
                  <th scope="col" className={cn(th, "text-right")}>Chargeback rate (chargebacks)</th>
                  <th scope="col" className={cn(th, "text-right")}>Change (approval · chargeback)</th>
                </tr>
              </thead>
              <tbody>
                <WindowRow e={e} w={e.before} label="Before" change={false} />
                <WindowRow e={e} w={e.after} label="After" change />
              </tbody>
            </table>
          </ScrollTable>
          {e.note ? <p className="text-amber-950">{e.note}</p> : null}
          {!e.enough && !e.note ? <p className="text-amber-950">Not enough data: each window needs at least {minAttempts} attempts.</p> : null}
        </div>
      ))}
    </li>
  );
}

const EFFECTS_WORDS: OnDemandWords<EffectsPending> = {
  ask: "Measure",
  cost: "Runs up to two reports per applied version (they count against the reporting quota).",
  label: "Measured-after status",
  failed: "Not measured",
  failedDetail: "The figures could not be fetched.",
  fetching: "Fetching",
  asking: "Asking for the windows before and after each change…",
  whileFetching: () => "Fetching the windows before and after each change from the reporting service; the figures appear here by themselves.",
  whileQueued: () => "The reports wait for the reporting service; the figures appear here by themselves.",
};

export function EffectsPanel() {
  return (
    <OnDemandReport<RoutingEffectsAnswer, EffectsPending> url="/api/routing/effects" words={EFFECTS_WORDS}>
      {(d) => <Effects d={d} />}
    </OnDemandReport>
  );
}

function Effects({ d }: { d: RoutingEffectsAnswer }) {
  if (d.versions.length === 0) return <p className="text-sm text-slate-700">No applied version to measure yet.</p>;
  return (
    <div className="flex flex-col gap-2" data-testid="routing-effects">
      <p className="text-sm text-slate-800">
        Windows of full days ({d.time_zone}), at most {d.max_days}, equal before and after; the apply day is in neither. Each window needs at least{" "}
        {formatValue(d.min_attempts, "count")} attempts. Chargebacks are counted on the date of the attempt they dispute, so the after window&apos;s
        chargeback rate can still rise.
      </p>
      <ol className="flex flex-col gap-2" aria-label="Measured after each version">
        {d.versions.map((v) => (
          <VersionCard key={v.version} v={v} minAttempts={d.min_attempts} />
        ))}
      </ol>
    </div>
  );
}
