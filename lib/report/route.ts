import "server-only";
import type { Operation } from "@/lib/contract";
import { getGateway } from "@/lib/core/upstream";
import { answerBody } from "@/lib/core/upstream/gateway";
import { queryKey, queryOfKey, type ReportQuery } from "@/lib/core/upstream/records";
import { BodyKeys } from "@/lib/core/route/body-keys";
import { parseJsonBody } from "@/lib/core/route/handler";
import { jsonResponse } from "@/lib/core/route/json-response";
import { measure } from "@/lib/core/http/server-timing";

const MAX_WAIT_MS = 25_000;

/** `?wait=ms`: how long the caller is willing to hold the request open for an answer (long polling). */
export function waitParam(request: Request): number {
  const raw = Number(new URL(request.url).searchParams.get("wait") ?? 0);
  return Number.isFinite(raw) ? Math.min(MAX_WAIT_MS, Math.max(0, raw)) : 0;
}

/** The cache keys of the bodies this process has validated (./body-keys.ts). */
const bodyKeys = new BodyKeys();

/**
 * Shared body of the two report routes: an answer at once from cache; otherwise a job, answered 200
 * if it finishes within `wait` ms, else 202 with the job to poll. `text` is the request's body as
 * sent, read once by `apiRoute`. It is parsed and validated once (`gateway.parse`: the operation's
 * query schema, then the canonical query) the first time this process sees it; after that its kept
 * key stands for it, and the query, when a job needs it, is the one that key was made from. An exact
 * cache hit is sent as the bytes the cache keeps for it, serialized at its first hit. Small answers
 * go uncompressed (./json-response.ts).
 */
export async function submitReport(op: Operation, text: string, waitMs: number, owner: string, keys: BodyKeys = bodyKeys): Promise<Response> {
  const gateway = getGateway();
  let query: ReportQuery | undefined;
  let key = measure("parse", () => keys.get(op, text));
  if (key === undefined) {
    query = measure("parse", () => gateway.parse(op, parseJsonBody(text)));
    key = queryKey(op, query);
    keys.set(op, text, key); // only now: the body validated, and this is its query's key
  }
  const hit = measure("cache", () => gateway.cachedAnswerByKey(key));
  if (hit) return measure("serialize", () => jsonResponse(hit.json));
  // A kept text whose answer has left the cache: its query is the one its key was made from.
  query ??= queryOfKey(op, key);
  const asked = query;
  const out = measure("submit", () => gateway.submit(op, asked, owner));
  if ("cached" in out) return measure("serialize", () => jsonResponse(JSON.stringify(answerBody(out.cached, asked))));
  const job = (await gateway.settle(out.job.id, waitMs)) ?? out.job;
  const finished = job.status.state !== "queued" && job.status.state !== "fetching";
  return measure("serialize", () => jsonResponse(JSON.stringify(job), finished ? 200 : 202, finished ? {} : { Location: `/api/reports/jobs/${job.id}` }));
}
