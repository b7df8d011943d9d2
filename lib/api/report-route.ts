import "server-only";
import type { Operation } from "@/lib/contract";
import { NextResponse } from "next/server";
import { getGateway } from "@/lib/upstream";
import { answerBody } from "@/lib/upstream/gateway";
import { jsonResponse } from "./json-response";
import { measure } from "./server-timing";

const MAX_WAIT_MS = 25_000;

/** `?wait=ms`: how long the caller is willing to hold the request open for an answer (long polling). */
export function waitParam(request: Request): number {
  const raw = Number(new URL(request.url).searchParams.get("wait") ?? 0);
  return Number.isFinite(raw) ? Math.min(MAX_WAIT_MS, Math.max(0, raw)) : 0;
}

/**
 * Shared body of the two report routes: an answer at once from cache; otherwise a job, answered 200
 * if it finishes within `wait` ms, else 202 with the job to poll. An exact cache hit is sent as the
 * bytes the cache keeps for it, serialized at its first hit. Small answers go uncompressed
 * (./json-response.ts).
 */
export async function submitReport(op: Operation, body: unknown, waitMs: number, owner: string): Promise<NextResponse> {
  const gateway = getGateway();
  const query = measure("parse", () => gateway.parse(op, body));
  const hit = measure("cache", () => gateway.cachedAnswer(op, query));
  if (hit) return measure("serialize", () => jsonResponse(hit.json));
  const out = measure("submit", () => gateway.submit(op, query, owner));
  if ("cached" in out) return measure("serialize", () => jsonResponse(JSON.stringify(answerBody(out.cached, query))));
  const job = (await gateway.settle(out.job.id, waitMs)) ?? out.job;
  const finished = job.status.state !== "queued" && job.status.state !== "fetching";
  return measure("serialize", () => jsonResponse(JSON.stringify(job), finished ? 200 : 202, finished ? {} : { Location: `/api/reports/jobs/${job.id}` }));
}
