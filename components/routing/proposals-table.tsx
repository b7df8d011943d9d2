"use client";
/**
 * Proposals from evidence (lib/features/routing/proposals.ts): for a BIN or bank, another active MID whose
 * approval rate over the window is better by the margin and significantly so. Both rates and counts,
 * the p-value against the level it was held to, both chargeback rates, a worse chargeback rate said
 * in words, and a button that puts the proposal into the editor as a rule.
 */
import type { Proposal, ProposalOptions } from "@/lib/features/routing/proposals";
import { formatChange, formatValue } from "@/lib/report/metrics/format";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { ScrollTable } from "./live-tables";
import { useMidName } from "./use-mid-name";

const th = "px-3 py-2 text-left font-medium whitespace-nowrap";
const num = "px-3 py-1.5 text-right tabular-nums whitespace-nowrap align-top";
const td = "px-3 py-1.5 align-top";

/** "p = 0.0031", "p < 0.0001": a p-value with the digits a reader can use. */
export function pValueText(p: number): string {
  if (p < 0.0001) return "p < 0.0001";
  return `p = ${p.toPrecision(2)}`;
}

export function ProposalsTable({
  proposals,
  thresholds,
  window,
  considered,
  onUse,
}: {
  proposals: readonly Proposal[];
  thresholds: ProposalOptions;
  window: { from: string; to: string };
  considered: number;
  /** Puts a proposal into the editor; absent for readers. */
  onUse?: (p: Proposal) => void;
}) {
  const mid = useMidName();
  // The figures after the summary's "route … to <MID>": kept, with the MIDs named as everywhere.
  const figures = (summary: string) => (summary.includes(":") ? summary.slice(summary.indexOf(":")) : "");
  const rule = `another active MID is proposed when both have at least ${formatValue(thresholds.minAttempts, "count")} attempts, its approval rate is higher by at least ${thresholds.marginPp} pp, and a one-sided two-proportion z-test gives p below ${thresholds.alpha} (split among the MIDs tested)`;
  if (proposals.length === 0) {
    return (
      <p className="rounded-md border border-dashed border-slate-300 bg-white px-3 py-2 text-sm text-slate-800" data-testid="routing-proposals">
        No proposals: of {formatValue(considered, "count")} BINs and banks with traffic from {window.from} to {window.to}, none has a MID clearly better than the
        one it is routed to ({rule}).
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-2" data-testid="routing-proposals">
      <p className="text-sm text-slate-800">
        {window.from} to {window.to}, {formatValue(considered, "count")} BINs and banks considered: {rule}. Rates are ratios of the window&apos;s sums; chargeback
        rate = chargebacks ÷ approvals.
      </p>
      <ScrollTable label="Routing proposals from evidence">
        <table className="w-full text-sm" aria-label="Routing proposals from evidence">
          <thead className="bg-slate-100">
            <tr>
              <th scope="col" className={th}>Proposal</th>
              <th scope="col" className={cn(th, "text-right")}>Difference</th>
              <th scope="col" className={cn(th, "text-right")}>p-value</th>
              <th scope="col" className={cn(th, "text-right")}>Chargeback rate (proposed · current)</th>
              <th scope="col" className={th}>
                <span className="sr-only">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {proposals.map((p) => (
              <tr key={`${p.kind}-${p.key}`} className="border-t border-slate-200" data-proposal-key={p.key}>
                <th scope="row" className={cn(td, "text-left font-normal")}>
                  {`route ${p.kind} ${p.key} from ${mid(p.current.gateway_id)} to ${mid(p.proposed.gateway_id)}${figures(p.summary)}`}
                </th>
                <td className={num}>{formatChange(p.difference_pp / 100, "points")}</td>
                <td className={num} title={`z = ${p.z.toFixed(2)}; held to p < ${p.threshold.toPrecision(2)}`}>
                  {pValueText(p.p_value)}
                </td>
                <td className={num}>
                  {formatValue(p.proposed.cb_rate, "percent")} · {formatValue(p.current.cb_rate, "percent")}
                  {p.chargeback_worse ? <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-950">chargeback rate worse</span> : null}
                </td>
                <td className={td}>
                  {onUse ? (
                    <Button size="sm" onClick={() => onUse(p)} aria-label={`Put "${p.rule.rule_name}" into the editor`}>
                      Put in editor
                    </Button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </div>
  );
}
