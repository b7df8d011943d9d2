import "server-only";
/**
 * The live routing configuration, through the service's extension endpoints (docs/routing.md "Live
 * configuration"): reading, validating and previewing go with the dashboard's reporting client;
 * applying and restoring need the separate routing credential (UPSTREAM_ROUTING_CLIENT_ID/SECRET, a
 * client with the routing-admin scope). Without that credential the workspace is read-only.
 */
import { z } from "zod";
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
import { UpstreamClient, UpstreamError } from "@/lib/core/upstream/client";
import { upstreamApiError } from "@/lib/core/upstream/errors";
import { getGateway } from "@/lib/core/upstream/index";

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
