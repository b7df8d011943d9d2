"use client";
/**
 * Proposals from evidence, asked for on demand: they come from an order-summary report of the last 90
 * days, which spends the shared reporting quota, so the page does not run it on every visit. While
 * the report waits for the quota, the place in the queue and the estimated start show, in the words
 * of every other waiting screen, and the answer is asked for again near that start.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { RoutingProposalsAnswer, RoutingProposalsPending } from "@/lib/routing/evidence";
import type { Proposal } from "@/lib/routing/proposals";
import { pendingDelay } from "@/lib/bin-lookup/evidence";
import { formatInstant } from "@/lib/metrics/format";
import { apiFetch, RequestError } from "@/lib/report-client/fetch";
import { queuePosition, queueWords } from "@/lib/report-client/queue-words";
import { Button } from "@/components/ui/button";
import { StatusBanner } from "@/components/ui/status-banner";
import { ProposalsTable } from "./proposals-table";

export function ProposalsPanel({ timeZone, onUse }: { timeZone: string; onUse?: ((p: Proposal) => void) | undefined }) {
  const [asked, setAsked] = useState(false);
  const query = useQuery({
    queryKey: ["routing-proposals"],
    queryFn: ({ signal }) => apiFetch<RoutingProposalsAnswer | RoutingProposalsPending>("/api/routing/proposals", { signal }),
    enabled: asked,
    refetchInterval: (q) => (q.state.data?.state === "pending" ? pendingDelay(q.state.data, Date.now()) : false),
    staleTime: 10 * 60_000,
  });
  if (!asked) {
    return (
      <div>
        <Button onClick={() => setAsked(true)}>Find proposals</Button>
        <p className="mt-1 text-xs text-slate-600">Runs one report of the last 90 days by BIN, bank and MID (it counts against the reporting quota).</p>
      </div>
    );
  }
  if (query.isError) {
    const e = query.error;
    return (
      <StatusBanner tone="error" label="Proposals status" title="Proposals not available" detail={e instanceof RequestError ? e.message : "The proposals could not be made."} action={e instanceof RequestError ? e.action : "Try again."}>
        <Button size="sm" onClick={() => void query.refetch()}>
          Try again
        </Button>
      </StatusBanner>
    );
  }
  const d = query.data;
  if (!d || d.state === "pending") {
    const detail = d
      ? d.phase === "fetching"
        ? `Fetching ${d.window.from} to ${d.window.to} from the reporting service; the proposals appear here by themselves.`
        : `${d.estimated_start ? queueWords({ position: d.position ?? 0, estimated_start: d.estimated_start }, query.dataUpdatedAt) : queuePosition(d.position ?? 0)}. The report of ${d.window.from} to ${d.window.to} waits for the reporting service; the proposals appear here by themselves.`
      : "Asking for the last 90 days by BIN, bank and MID…";
    return <StatusBanner tone="progress" busy label="Proposals status" title={d?.phase === "queued" ? "Queued" : "Fetching the last 90 days"} detail={detail} />;
  }
  return (
    <div className="flex flex-col gap-2">
      <ProposalsTable proposals={d.proposals} thresholds={d.thresholds} window={d.window} considered={d.considered} onUse={onUse} />
      <p className="text-xs text-slate-600">
        Current MIDs as live version {d.live_version} routes them. Data fetched {formatInstant(d.fetched_at, timeZone)}; chargebacks are counted on the date of the
        attempt they dispute, so the last weeks&apos; rates can still rise.
      </p>
    </div>
  );
}
