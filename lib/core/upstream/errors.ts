/**
 * The one table that turns what the upstream service (or anything on the way) answered into what the
 * dashboard says: a status, a message a user can act on, and what to do. Reports (in a job's
 * status) and BIN lookups (as API errors) both read it.
 */
import { ApiError } from "@/lib/contract/errors";
import { ERROR_TYPES, type ErrorStatus } from "@/lib/contract/schemas";
import { UpstreamError } from "./client";

export type UpstreamCall = "report" | "routing" | "preview";

export interface Translation {
  /** The dashboard's status (502: the upstream failed, not the caller). */
  status: number;
  message: string;
  action: string;
  retryAfterSeconds?: number;
}

const CREDENTIALS: Omit<Translation, "status"> = {
  message: "The dashboard's credentials were refused by the reporting service.",
  action: "Ask an administrator to check the upstream client credentials.",
};

function fromUpstream(e: UpstreamError, call: UpstreamCall): Translation {
  const report = call === "report";
  switch (e.status) {
    case 400:
      return report
        ? { status: 400, message: `The reporting service rejected the request: ${e.message}`, action: "Change the report and run it again." }
        : { status: 400, message: e.message, action: "Correct the BIN lookup and try again." };
    case 401:
      return { status: 502, ...CREDENTIALS };
    case 404:
      if (call === "preview") {
        return {
          status: 404,
          message:
            "The reporting service this dashboard uses cannot preview routes (previews are an extension of this product's own service). Nothing was routed. To route, choose “Route as a real order”: that advances the rotation like an order.",
          action: "Choose “Route as a real order” if routing it is what you want.",
        };
      }
      break;
    case 429:
      return report
        ? { status: 429, message: "The reporting service kept refusing calls (rate limit), even after waiting.", action: "Wait a minute and run the report again." }
        : { status: 429, message: "Too many BIN lookups; wait a moment.", action: "Wait a moment and try again.", retryAfterSeconds: e.retryAfterSeconds ?? 1 };
    case 503:
      if (!report) return { status: 503, message: "No gateway is available for this BIN (the fallback group has no active member).", action: "Ask an operator to check the routing configuration." };
      break;
  }
  return {
    status: 502,
    message: `The reporting service failed: ${e.message}`,
    action: "Try again in a few minutes; if it persists, tell an administrator.",
  };
}

/** What to tell the user about `e`, raised while making an upstream `call`. */
export function translateUpstream(e: unknown, call: UpstreamCall): Translation {
  if (e instanceof ApiError) return { status: e.status, message: e.message, action: e.status === 400 ? "Change the report and run it again." : "Try again." };
  if (e instanceof UpstreamError) return fromUpstream(e, call);
  return { status: 500, message: "Something went wrong while talking to the reporting service.", action: "Try again; if it persists, tell an administrator." };
}

/** The same, as the dashboard API's error (with Retry-After on a 429, the upstream's details on a 400). */
export function upstreamApiError(e: unknown, call: UpstreamCall): ApiError {
  if (e instanceof ApiError) return e;
  const t = translateUpstream(e, call);
  const details = e instanceof UpstreamError && e.status === 400 ? e.details : undefined;
  if (t.retryAfterSeconds !== undefined) {
    return new ApiError(429, t.message, undefined, { "Retry-After": String(t.retryAfterSeconds) }, { retry_after: t.retryAfterSeconds });
  }
  // The contract's error table has no 502: "unavailable" is the nearest for a failing upstream.
  return new ApiError(isErrorStatus(t.status) ? t.status : 503, t.message, details);
}

function isErrorStatus(n: number): n is ErrorStatus {
  return n in ERROR_TYPES;
}
