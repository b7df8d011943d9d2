"use client";
/**
 * A routing figure asked for on demand: it comes from reports that spend the shared reporting quota,
 * so the page runs them only when asked. While they wait for the quota, the place in the queue and
 * the estimated start show, in the words of every other waiting screen, and the answer is asked for
 * again near that start.
 */
import { useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { pendingDelay } from "@/lib/features/bin-lookup/evidence";
import { apiFetch, RequestError } from "@/lib/core/api-client/fetch";
import { queuePosition, queueWords } from "@/lib/report/client/queue-words";
import { Button } from "@/components/ui/button";
import { StatusBanner } from "@/components/ui/status-banner";

/** What the API answers while the reports wait for the quota or are being fetched. */
export interface OnDemandPending {
  state: "pending";
  phase: "queued" | "fetching";
  position: number | null;
  estimated_start: string | null;
}

export interface OnDemandWords<P> {
  /** The button that asks, and the line under it saying what asking costs. */
  ask: string;
  cost: string;
  /** The status banner's accessible label, and its title and detail when the figures cannot be had. */
  label: string;
  failed: string;
  failedDetail: string;
  /** The banner's title while fetching, and its detail before the first answer. */
  fetching: string;
  asking: string;
  /** The detail while fetching, and what follows the queue place while queued. */
  whileFetching: (p: P) => string;
  whileQueued: (p: P) => string;
}

export function OnDemandReport<A, P extends OnDemandPending>({
  url,
  words,
  children,
}: {
  url: string;
  words: OnDemandWords<P>;
  children: (answer: A) => ReactNode;
}) {
  const [asked, setAsked] = useState(false);
  const query = useQuery({
    queryKey: ["on-demand", url],
    queryFn: ({ signal }) => apiFetch<A | P>(url, { signal }),
    enabled: asked,
    refetchInterval: (q) => {
      const d = q.state.data;
      return isPending<P>(d) ? pendingDelay(d, Date.now()) : false;
    },
    staleTime: 10 * 60_000,
  });
  if (!asked) {
    return (
      <div>
        <Button onClick={() => setAsked(true)}>{words.ask}</Button>
        <p className="mt-1 text-xs text-slate-600">{words.cost}</p>
      </div>
    );
  }
  if (query.isError) {
    const e = query.error;
    return (
      <StatusBanner tone="error" label={words.label} title={words.failed} detail={e instanceof RequestError ? e.message : words.failedDetail} action={e instanceof RequestError ? e.action : "Try again."}>
        <Button size="sm" onClick={() => void query.refetch()}>
          Try again
        </Button>
      </StatusBanner>
    );
  }
  const d = query.data;
  const pending: P | null = d !== undefined && isPending<P>(d) ? d : null;
  if (d === undefined || pending) {
    const detail = pending
      ? pending.phase === "fetching"
        ? words.whileFetching(pending)
        : `${pending.estimated_start ? queueWords({ position: pending.position ?? 0, estimated_start: pending.estimated_start }, query.dataUpdatedAt) : queuePosition(pending.position ?? 0)}. ${words.whileQueued(pending)}`
      : words.asking;
    return <StatusBanner tone="progress" busy label={words.label} title={pending?.phase === "queued" ? "Queued" : words.fetching} detail={detail} />;
  }
  return children(d as A);
}

function isPending<P extends OnDemandPending>(d: unknown): d is P {
  return typeof d === "object" && d !== null && (d as { state?: unknown }).state === "pending";
}
