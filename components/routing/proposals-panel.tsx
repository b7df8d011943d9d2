"use client";
/**
 * Proposals from evidence, asked for on demand (./on-demand-report.tsx): they come from an
 * order-summary report of the last 90 days, which spends the shared reporting quota.
 */
import type { RoutingProposalsAnswer, RoutingProposalsPending } from "@/lib/features/routing/evidence";
import type { Proposal } from "@/lib/features/routing/proposals";
import { formatInstant } from "@/lib/report/metrics/format";
import { OnDemandReport, type OnDemandWords } from "./on-demand-report";
import { ProposalsTable } from "./proposals-table";

const PROPOSALS_WORDS: OnDemandWords<RoutingProposalsPending> = {
  ask: "Find proposals",
  cost: "Runs one report of the last 90 days by BIN, bank and MID (it counts against the reporting quota).",
  label: "Proposals status",
  failed: "Proposals not available",
  failedDetail: "The proposals could not be made.",
  fetching: "Fetching the last 90 days",
  asking: "Asking for the last 90 days by BIN, bank and MID…",
  whileFetching: (p) => `Fetching ${p.window.from} to ${p.window.to} from the reporting service; the proposals appear here by themselves.`,
  whileQueued: (p) => `The report of ${p.window.from} to ${p.window.to} waits for the reporting service; the proposals appear here by themselves.`,
};

export function ProposalsPanel({ timeZone, onUse }: { timeZone: string; onUse?: ((p: Proposal) => void) | undefined }) {
  return (
    <OnDemandReport<RoutingProposalsAnswer, RoutingProposalsPending> url="/api/routing/proposals" words={PROPOSALS_WORDS}>
      {(d) => (
        <div className="flex flex-col gap-2">
          <ProposalsTable proposals={d.proposals} thresholds={d.thresholds} window={d.window} considered={d.considered} onUse={onUse} />
          <p className="text-xs text-slate-600">
            Current MIDs as live version {d.live_version} routes them. Data fetched {formatInstant(d.fetched_at, timeZone)}; chargebacks are counted on the date of the
            attempt they dispute, so the last weeks&apos; rates can still rise.
          </p>
        </div>
      )}
    </OnDemandReport>
  );
}
