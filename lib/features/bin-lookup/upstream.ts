import "server-only";
/**
 * The dashboard's BIN lookups: a preview (which gateway a BIN would get, nothing advances) or a real
 * routing call, through the upstream client, with upstream errors in a user's words and gateway ids
 * named as reports name them (their gateway_alias). Beside them, the evidence: the last 90 days of
 * the BINs per gateway, as one report through the gateway (cache, fair queue, derivation).
 */
import { addDays, todayIn, ERROR_TYPES, type BinRoutingRequest, type BinRoutingResponse, type ErrorStatus } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import {
  BIN_EVIDENCE_MIN_ATTEMPTS,
  buildEvidence,
  distinctBins,
  evidenceRange,
  evidenceRequest,
  type EvidenceAnswer,
} from "@/lib/features/bin-lookup/evidence";
import { upstreamApiError } from "@/lib/core/upstream/errors";
import type { JobResult, ReportGateway } from "@/lib/core/upstream/gateway";

import type { LookupMode } from "@/lib/features/bin-lookup/lookup";

export type { LookupMode };

export interface BinAnswer extends BinRoutingResponse {
  /** Which call this answer came from: a preview moved nothing; a route advanced the rotation. */
  mode: LookupMode;
  /** Gateway id → alias, for the ids in this answer whose alias the reports have shown. */
  gateway_names: Record<string, string>;
}

/** Queue owner of the one report that learns gateway aliases. */
const NAMES_OWNER = "gateway-names";

/**
 * Aliases of gateway ids as the reports give them (gateway_id with gateway_alias in one record).
 * Known ones come from answers already fetched; for others, one report of the last 90 full days by
 * gateway id and alias goes through the gateway (cached a day like any past range, queued fairly),
 * waited for up to `waitMs`. An id no report has shown stays unnamed: never a guess.
 */
export async function gatewayNames(gateway: ReportGateway, ids: readonly string[], waitMs = 4_000): Promise<Record<string, string>> {
  const known = () => new Map(gateway.seen.values("gateway_id").flatMap((v) => (v.label ? [[String(v.value), v.label] as const] : [])));
  let names = known();
  if (ids.some((id) => !names.has(id))) {
    const today = todayIn(gateway.config.timeZone);
    try {
      const query = gateway.parse("orders", { start_date: addDays(today, -90), end_date: addDays(today, -1), group_by: ["gateway_id", "gateway_alias"], metrics: ["attempts"] });
      const out = gateway.submit("orders", query, NAMES_OWNER);
      if ("job" in out) await gateway.settle(out.job.id, waitMs);
    } catch {
      // Names are a courtesy: the lookup's answer never waits on, or fails for, them.
    }
    names = known();
  }
  const out: Record<string, string> = {};
  for (const id of ids) {
    const n = names.get(id);
    if (n) out[id] = n;
  }
  return out;
}

export async function lookUpBin(gateway: ReportGateway, request: BinRoutingRequest, mode: LookupMode): Promise<BinAnswer> {
  let answer: BinRoutingResponse;
  try {
    answer = await gateway.client.route(request, mode);
  } catch (e) {
    throw upstreamApiError(e, mode === "preview" ? "preview" : "routing");
  }
  const ids = [...new Set([answer.gateway_id, answer.session_info.next_gateway_id])];
  return { ...answer, mode, gateway_names: await gatewayNames(gateway, ids) };
}

/** Queue owner of the BIN evidence reports (one fair-queue owner for every analyst's lookups). */
export const EVIDENCE_OWNER = "bin-evidence";

/** How long a request for evidence waits for its report before answering "pending" (the browser asks again). */
export const EVIDENCE_WAIT_MS = 3_000;

const isErrorStatus = (n: number): n is ErrorStatus => n in ERROR_TYPES;

/** Gateway id → alias, as far as the answers already fetched know (never a call of its own). */
function knownNames(gateway: ReportGateway): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of gateway.seen.values("gateway_id")) if (v.label) out[String(v.value)] = v.label;
  return out;
}

export interface EvidenceOptions {
  waitMs?: number;
  /** The fewest attempts a gateway needs to be called best (BIN_EVIDENCE_MIN_ATTEMPTS). */
  minAttempts?: number;
  now?: Date;
}

/**
 * The last 90 full days (today−90 … today−1 in the reporting time zone) of `bins` per gateway: ONE
 * order-summary report for all of them, grouped by bin, gateway id and alias and filtered by their
 * first 6 digits (the reports' `bin`), through the gateway on its own queue owner. Answered from
 * cache or derived when it can; otherwise waited for up to `waitMs`, then "pending" (asking again
 * joins the same job, so polling costs no further upstream call).
 */
export async function binEvidence(gateway: ReportGateway, bins: readonly string[], options: EvidenceOptions = {}): Promise<EvidenceAnswer> {
  const { waitMs = EVIDENCE_WAIT_MS, minAttempts = BIN_EVIDENCE_MIN_ATTEMPTS, now = new Date() } = options;
  const asked = distinctBins(bins);
  const timeZone = gateway.config.timeZone;
  const range = evidenceRange(todayIn(timeZone, now), timeZone);
  const query = gateway.parse("orders", evidenceRequest(range, asked));
  const out = gateway.submit("orders", query, EVIDENCE_OWNER);
  let result: JobResult;
  if ("cached" in out) result = out.cached;
  else {
    const view = (await gateway.settle(out.job.id, waitMs)) ?? out.job;
    const s = view.status;
    switch (s.state) {
      case "done":
        result = s.result;
        break;
      case "failed":
        throw new ApiError(isErrorStatus(s.error.status) ? s.error.status : 503, `The evidence report failed: ${s.error.message}`);
      case "cancelled":
        throw new ApiError(503, "The evidence report was cancelled before it finished; look the BIN up again.");
      case "queued":
        return { state: "pending", range, min_attempts: minAttempts, phase: "queued", position: s.position, estimated_start: s.estimated_start };
      case "fetching":
        return { state: "pending", range, min_attempts: minAttempts, phase: "fetching", position: null, estimated_start: null };
    }
  }
  return {
    state: "done",
    range,
    fetched_at: result.fetched_at,
    source: result.source,
    min_attempts: minAttempts,
    bins: buildEvidence(asked, result.data, minAttempts, knownNames(gateway)),
  };
}
