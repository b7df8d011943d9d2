import "server-only";
/**
 * The dashboard's BIN lookups: a preview (which gateway a BIN would get, nothing advances) or a real
 * routing call, through the upstream client, with upstream errors in a user's words and gateway ids
 * named as reports name them (their gateway_alias). Beside them, the evidence: the last 90 days of
 * the BINs per gateway, as one report through the gateway (cache, fair queue, derivation).
 */
import { z } from "zod";
import { addDays, todayIn, ERROR_TYPES, type BinRoutingRequest, type BinRoutingResponse, type ErrorStatus } from "@/lib/contract";
import {
  ROUTING_ADMIN_SCOPE,
  ROUTING_CONFIG_PATH,
  ROUTING_CONFIG_PREVIEW_PATH,
  ROUTING_CONFIG_RESTORE_PATH,
  ROUTING_CONFIG_VALIDATE_PATH,
  ROUTING_CONFIG_VERSIONS_PATH,
  RoutingConfigVersionSchema,
  RoutingLiveConfigSchema,
  RoutingPreviewSchema,
  RoutingValidationSchema,
  type RoutingConfigFileSchema,
  type RoutingConfigVersion,
  type RoutingLiveConfig,
  type RoutingPreview,
  type RoutingPreviewRequest,
  type RoutingValidation,
} from "@/lib/contract/bin-routing";
import { successEnvelope } from "@/lib/contract/envelope";
import { ApiError } from "@/lib/contract/errors";
import { serverEnv } from "@/lib/core/env/env";
import {
  BIN_EVIDENCE_MIN_ATTEMPTS,
  buildEvidence,
  distinctBins,
  evidenceRange,
  evidenceRequest,
  type EvidenceAnswer,
} from "@/lib/features/bin-lookup/evidence";
import { UpstreamClient, UpstreamError } from "@/lib/core/upstream/client";
import { upstreamApiError } from "@/lib/core/upstream/errors";
import type { JobResult, ReportGateway } from "@/lib/core/upstream/gateway";
import { getGateway } from "@/lib/core/upstream/index";

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

// ---------------------------------------------------------------------------------------------
// The live routing configuration (the service's extension endpoints, docs/routing.md "Live
// configuration"): reading, validating and previewing go with the dashboard's reporting client;
// applying and restoring need the separate routing credential (UPSTREAM_ROUTING_CLIENT_ID/SECRET, a
// client with the routing-admin scope). Without that credential the workspace is read-only.

/** The configuration in the file format, as a change carries it (defaults may be left out). */
export type RoutingConfigInput = z.input<typeof RoutingConfigFileSchema>;

export interface RoutingClients {
  /** Reads, validates and previews: the dashboard's reporting client. */
  read: UpstreamClient;
  /** Applies and restores: the routing-admin client, null when the dashboard has no such credential. */
  write: UpstreamClient | null;
}

const writeKey = Symbol.for("payments-analytics.routing-write-client");
type WithWriteClient = typeof globalThis & { [writeKey]?: UpstreamClient | null };

/** The routing-admin client from the environment (one per process), or null without the credential. */
export function routingWriteClient(): UpstreamClient | null {
  const g = globalThis as WithWriteClient;
  if (g[writeKey] === undefined) {
    const env = serverEnv();
    g[writeKey] =
      env.UPSTREAM_ROUTING_CLIENT_ID && env.UPSTREAM_ROUTING_CLIENT_SECRET && env.UPSTREAM_TOKEN_URL
        ? new UpstreamClient({
            baseUrl: env.UPSTREAM_BASE_URL.replace(/\/$/, ""),
            clientId: env.UPSTREAM_ROUTING_CLIENT_ID,
            clientSecret: env.UPSTREAM_ROUTING_CLIENT_SECRET,
            tokenUrl: env.UPSTREAM_TOKEN_URL,
          })
        : null;
  }
  return g[writeKey];
}

/** The process-wide clients: the gateway's reporting client and the routing credential's. */
export function routingClients(): RoutingClients {
  return { read: getGateway().client, write: routingWriteClient() };
}

/** Why the workspace cannot apply or restore, in a user's words (also the 503 such a call answers). */
export const NO_WRITE_CREDENTIAL =
  `This dashboard has no routing credential (UPSTREAM_ROUTING_CLIENT_ID and UPSTREAM_ROUTING_CLIENT_SECRET, a client with the ${ROUTING_ADMIN_SCOPE} scope), ` +
  "so the routing configuration can be read here but not changed. An administrator sets them.";

/** An upstream failure of a configuration call as the dashboard API's error, the service's own words kept where they help. */
function configApiError(e: unknown, writing: boolean): ApiError {
  if (!(e instanceof UpstreamError)) return upstreamApiError(e, "routing");
  switch (e.status) {
    case 400:
      return new ApiError(400, e.message, e.details);
    case 401:
      return new ApiError(503, `The routing service refused the dashboard's ${writing ? "routing credential (UPSTREAM_ROUTING_CLIENT_ID)" : "credentials"}; ask an administrator to check them.`);
    case 403:
      return new ApiError(
        503,
        `The dashboard's routing credential (UPSTREAM_ROUTING_CLIENT_ID) lacks the ${ROUTING_ADMIN_SCOPE} scope, so the service refused the change; an administrator must create the client with --scope ${ROUTING_ADMIN_SCOPE}.`,
      );
    case 404:
      return new ApiError(404, e.message);
    case 409:
      return new ApiError(409, e.message);
    case 503:
      return new ApiError(503, `The routing service is unavailable: ${e.message}`);
  }
  return upstreamApiError(e, "routing");
}

async function callConfig<O>(client: UpstreamClient, method: "GET" | "POST", path: string, body: unknown, data: z.ZodType<O>, writing: boolean): Promise<O> {
  let json: unknown;
  try {
    json = await client.extension(method, path, body);
  } catch (e) {
    throw configApiError(e, writing);
  }
  const envelope = successEnvelope({ data: z.unknown() }).safeParse(json);
  const parsed = envelope.success ? data.safeParse(envelope.data.data) : null;
  if (!parsed?.success) throw new ApiError(503, `The routing service sent an answer to ${method} ${path} that the dashboard does not understand; is it a version without the live configuration endpoints?`);
  return parsed.data;
}

function writer(clients: RoutingClients): UpstreamClient {
  if (!clients.write) throw new ApiError(503, NO_WRITE_CREDENTIAL);
  return clients.write;
}

/** The live version with each group's state now (404 when the service has no configuration). */
export function getRoutingConfig(clients: RoutingClients = routingClients()): Promise<RoutingLiveConfig> {
  return callConfig(clients.read, "GET", ROUTING_CONFIG_PATH, undefined, RoutingLiveConfigSchema, false);
}

/** Every version, newest first. */
export function listRoutingVersions(clients: RoutingClients = routingClients()): Promise<RoutingConfigVersion[]> {
  return callConfig(clients.read, "GET", ROUTING_CONFIG_VERSIONS_PATH, undefined, RoutingConfigVersionSchema.array(), false);
}

/** The service's dry run of `config` (any shape: every problem comes back with its path); changes nothing. */
export function validateRoutingConfig(config: unknown, clients: RoutingClients = routingClients()): Promise<RoutingValidation> {
  return callConfig(clients.read, "POST", ROUTING_CONFIG_VALIDATE_PATH, config, RoutingValidationSchema, false);
}

/**
 * What the routing call would answer for each BIN under the live configuration and under `config`
 * (absent: the live one), without advancing any rotation or journalling anything.
 */
export function previewRouting(input: RoutingPreviewRequest, clients: RoutingClients = routingClients()): Promise<RoutingPreview> {
  return callConfig(clients.read, "POST", ROUTING_CONFIG_PREVIEW_PATH, input, RoutingPreviewSchema, false);
}

export interface RoutingApplyInput {
  config: RoutingConfigInput;
  reason: string;
  author: string;
  /** Applied only while this is the live version; otherwise 409 and nothing changes. */
  expected_version?: number;
}

/** Applies `config` as the next version, with the routing credential. 400 lists every problem; 409: the live version moved on. */
export async function applyRoutingConfig(input: RoutingApplyInput, clients: RoutingClients = routingClients()): Promise<RoutingConfigVersion> {
  const { config, ...meta } = input;
  return callConfig(writer(clients), "POST", ROUTING_CONFIG_PATH, { ...config, ...meta }, RoutingConfigVersionSchema, true);
}

export interface RoutingRestoreInput {
  reason: string;
  author: string;
  /** The version to apply again; default: the one before the live one. */
  version?: number;
  expected_version?: number;
}

/** Applies an earlier version again as a new version, with the routing credential (404: no such version; 409: the live version moved on). */
export async function restoreRoutingConfig(input: RoutingRestoreInput, clients: RoutingClients = routingClients()): Promise<RoutingConfigVersion> {
  return callConfig(writer(clients), "POST", ROUTING_CONFIG_RESTORE_PATH, input, RoutingConfigVersionSchema, true);
}
