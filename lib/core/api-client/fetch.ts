/**
 * The browser's plain calls to the dashboard's API: JSON in and out, read the quota, every failure
 * as a `RequestError` with a message and what to do about it. Apart from lib/report/client/api.ts
 * (running reports), so a page that only calls `apiFetch` does not load the report runner and the
 * operation table; a BIN is routed by lib/features/bin-lookup/route-bin.ts, which only the BIN lookup
 * loads.
 */
import type { ReportGateway } from "@/lib/core/upstream/gateway";

export type UpstreamStatus = ReturnType<ReportGateway["status"]>;

export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly action: string,
    readonly details: { path: string; message: string }[] = [],
    /** Seconds to wait, when the server said so (429). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "RequestError";
  }
}

/** A failed request in words for a status line: what went wrong and, for the API's refusals, what to do. */
export function failureText(e: unknown): string {
  return e instanceof RequestError ? `${e.message} ${e.action}` : e instanceof Error ? e.message : "The request failed.";
}

export function actionFor(status: number): string {
  if (status === 401) return "Your session has ended: sign in again, then run the report again.";
  if (status === 403) return "Your role does not allow this; ask an administrator for analyst access.";
  if (status === 400) return "Change the highlighted settings and try again.";
  if (status === 404) return "Run the report again.";
  if (status === 429) return "Wait a moment and try again.";
  return "Try again; if it keeps failing, tell an administrator.";
}

/** An error answer (the contract's envelope, or anything else a proxy may have sent) as a RequestError. */
export async function errorFrom(res: Response): Promise<RequestError> {
  let message = `The dashboard answered ${res.status} ${res.statusText}`.trim();
  let details: { path: string; message: string }[] = [];
  let retryAfter: number | undefined;
  try {
    const body = (await res.json()) as { message?: unknown; error?: { details?: unknown }; retry_after?: unknown };
    if (typeof body.message === "string") message = body.message;
    if (Array.isArray(body.error?.details)) details = body.error.details as typeof details;
    if (typeof body.retry_after === "number") retryAfter = body.retry_after;
  } catch {
    // not JSON: keep the status line
  }
  if (res.status === 401) message = "You are not signed in (or your session has expired).";
  return new RequestError(res.status, message, actionFor(res.status), details, retryAfter);
}

function networkError(): RequestError {
  return new RequestError(0, "The dashboard could not be reached.", "Check your connection and try again.");
}

export const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json" };

export async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { credentials: "same-origin", cache: "no-store", ...init });
  } catch (e) {
    if (init.signal?.aborted) throw e;
    throw networkError();
  }
}

/**
 * The browser's one way to call the dashboard's own API: JSON in and out, and any failure as a
 * `RequestError` carrying the server's message from the contract's error envelope.
 */
export async function apiFetch<T>(url: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const res = await send(url, {
    method: init.method ?? "GET",
    headers: init.body === undefined ? { Accept: "application/json" } : JSON_HEADERS,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as T;
}

export async function fetchUpstreamStatus(signal?: AbortSignal): Promise<UpstreamStatus> {
  const res = await send("/api/upstream/status", { headers: { Accept: "application/json" }, ...(signal ? { signal } : {}) });
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as UpstreamStatus;
}
