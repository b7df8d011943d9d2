import "server-only";
import type { Operation } from "@/lib/contract";
import { NextResponse } from "next/server";
import { getGateway } from "@/lib/upstream";

const MAX_WAIT_MS = 25_000;

/** `?wait=ms`: how long the caller is willing to hold the request open for an answer (long polling). */
export function waitParam(request: Request): number {
  const raw = Number(new URL(request.url).searchParams.get("wait") ?? 0);
  return Number.isFinite(raw) ? Math.min(MAX_WAIT_MS, Math.max(0, raw)) : 0;
}

/**
 * Shared body of the two report routes: an answer at once from cache; otherwise a job, answered 200
 * if it finishes within `wait` ms, else 202 with the job to poll.
 */
export async function submitReport(op: Operation, body: unknown, waitMs: number, owner: string): Promise<NextResponse> {
  const gateway = getGateway();
  const query = gateway.parse(op, body);
  const out = gateway.submit(op, query, owner);
  const headers = { "Cache-Control": "no-store" };
  if ("cached" in out) return NextResponse.json({ status: { state: "done", result: out.cached }, query }, { headers });
  const job = (await gateway.settle(out.job.id, waitMs)) ?? out.job;
  const finished = job.status.state !== "queued" && job.status.state !== "fetching";
  return NextResponse.json(job, { status: finished ? 200 : 202, headers: finished ? headers : { ...headers, Location: `/api/reports/jobs/${job.id}` } });
}
