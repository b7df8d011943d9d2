/**
 * The service's routing endpoints as routes of its table (service/app.ts): the routing call, the
 * preview extension, the live configuration's extension endpoints, and the benchmark's bare
 * baseline. The engine itself knows nothing of HTTP.
 */
import { BinRoutingRequestSchema } from "@/lib/contract/schemas";
import {
  ROUTING_ADMIN_SCOPE,
  ROUTING_CHANGE_META_FIELDS,
  ROUTING_CONFIG_PATH,
  ROUTING_CONFIG_PREVIEW_PATH,
  ROUTING_CONFIG_RESTORE_PATH,
  ROUTING_CONFIG_VALIDATE_PATH,
  ROUTING_CONFIG_VERSIONS_PATH,
  RoutingChangeMetaSchema,
  RoutingPreviewRequestSchema,
  RoutingRestoreRequestSchema,
} from "@/lib/contract/bin-routing";
import { issuesToDetails } from "@/lib/contract/error-envelope";
import { ApiError } from "@/lib/contract/errors";
import type { ClientRegistry } from "../clients";
import type { RequestContext, Route } from "../http/route";
import type { ConfigOutcome, RoutingEngine } from "./engine";

/**
 * `POST /api/bin-routing/route` (`route`) and the preview extension `POST /api/bin-routing/preview`
 * (`preview`): bearer auth (client headers optional), one rate-limit bucket for both.
 */
export function routingRoute(engine: RoutingEngine, mode: "route" | "preview" = "route"): Route {
  return {
    method: "POST",
    auth: "bearer",
    bucket: "routing",
    async handle(body: unknown, ctx: RequestContext) {
      const req = ApiError.parse(BinRoutingRequestSchema, body);
      return { body: mode === "route" ? await engine.route(req, ctx.clientId, ctx.now) : engine.preview(req, ctx.now) };
    },
  };
}

const envelope = (ctx: RequestContext, message: string, data: unknown) => ({ success: true, code: 200, message, data, timestamp: ctx.now.toISOString() });

/** The configuration part of a change request: everything but the change's own fields. */
function configPart(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const rest: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const f of ROUTING_CHANGE_META_FIELDS) delete rest[f];
  return rest;
}

function metaPart(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return {};
  const all = body as Record<string, unknown>;
  return Object.fromEntries(ROUTING_CHANGE_META_FIELDS.filter((f) => f in all).map((f) => [f, all[f]]));
}

function changed(ctx: RequestContext, outcome: ConfigOutcome, verb: string) {
  if (!outcome.ok) throw new ApiError(outcome.status, outcome.message, outcome.problems.length > 0 ? outcome.problems : undefined);
  const v = outcome.version;
  return { body: envelope(ctx, `Routing configuration version ${v.version} ${verb}`, v) };
}

/**
 * The live configuration (extension endpoints): read it and its versions, dry-run a change (any
 * client), and apply or restore a version (clients with the routing-admin scope only).
 */
export function routingConfigRoutes(engine: RoutingEngine, clients: ClientRegistry): Record<string, Route[]> {
  const requireAdmin = (ctx: RequestContext) => {
    if (ctx.clientId && clients.hasScope(ctx.clientId, ROUTING_ADMIN_SCOPE)) return;
    throw new ApiError(
      403,
      `Changing the routing configuration needs the ${ROUTING_ADMIN_SCOPE} scope, which client ${ctx.clientId ?? "(none)"} does not have; ` +
        `an operator creates such a client with: npm run service:cli -- create-client --name NAME --scope ${ROUTING_ADMIN_SCOPE}`,
    );
  };
  return {
    [ROUTING_CONFIG_PATH]: [
      {
        method: "GET",
        auth: "bearer",
        bucket: "routing",
        async handle(_body, ctx) {
          const live = engine.liveVersion;
          if (!live) throw new ApiError(404, "No routing configuration is loaded");
          return { body: envelope(ctx, `Routing configuration version ${live.version}`, { ...live, groups_state: engine.groupStatus() }) };
        },
      },
      {
        method: "POST",
        auth: "bearer",
        bucket: "routing",
        async handle(body, ctx) {
          requireAdmin(ctx);
          const meta = RoutingChangeMetaSchema.safeParse(metaPart(body));
          if (!meta.success) {
            // Every problem at once: the change's own fields and the configuration's.
            const { problems } = engine.validateConfig(configPart(body));
            const details = [...issuesToDetails(meta.error), ...problems];
            throw new ApiError(400, `The change has ${details.length} problem${details.length === 1 ? "" : "s"}; nothing was changed`, details);
          }
          const { reason, author, expected_version } = meta.data;
          return changed(ctx, await engine.applyConfig(configPart(body), { reason, author, clientId: ctx.clientId, expectedVersion: expected_version }), "applied");
        },
      },
    ],
    [ROUTING_CONFIG_VERSIONS_PATH]: [
      {
        method: "GET",
        auth: "bearer",
        bucket: "routing",
        async handle(_body, ctx) {
          const versions = [...engine.allVersions].reverse();
          return { body: envelope(ctx, `${versions.length} routing configuration versions, newest first`, versions) };
        },
      },
    ],
    [ROUTING_CONFIG_RESTORE_PATH]: [
      {
        method: "POST",
        auth: "bearer",
        bucket: "routing",
        async handle(body, ctx) {
          requireAdmin(ctx);
          const { version, reason, author, expected_version } = ApiError.parse(RoutingRestoreRequestSchema, body);
          return changed(ctx, await engine.restoreConfig(version, { reason, author, clientId: ctx.clientId, expectedVersion: expected_version }), "applied (a restore)");
        },
      },
    ],
    [ROUTING_CONFIG_PREVIEW_PATH]: [
      {
        method: "POST",
        auth: "bearer",
        bucket: "routing",
        async handle(body, ctx) {
          const { config, bins, sales_type } = ApiError.parse(RoutingPreviewRequestSchema, body);
          const preview = engine.previewConfig(config, bins, sales_type);
          const message =
            config === undefined
              ? `${bins.length} BIN${bins.length === 1 ? "" : "s"} under live version ${preview.live_version}`
              : preview.proposed_valid
                ? `${bins.length} BIN${bins.length === 1 ? "" : "s"} under live version ${preview.live_version} and the proposed configuration`
                : `The proposed configuration has ${preview.problems.length} problem${preview.problems.length === 1 ? "" : "s"}; only the live answers are given`;
          return { body: envelope(ctx, message, preview) };
        },
      },
    ],
    [ROUTING_CONFIG_VALIDATE_PATH]: [
      {
        method: "POST",
        auth: "bearer",
        bucket: "routing",
        async handle(body, ctx) {
          const meta = RoutingChangeMetaSchema.partial().safeParse(metaPart(body));
          const result = engine.validateConfig(configPart(body));
          const problems = [...(meta.success ? [] : issuesToDetails(meta.error)), ...result.problems];
          const valid = problems.length === 0;
          return {
            body: envelope(ctx, valid ? "The configuration is valid" : `The configuration has ${problems.length} problem${problems.length === 1 ? "" : "s"}`, {
              valid,
              problems,
              rotation: result.rotation,
              // The version this was checked against, so a caller holding that version's
              // configuration (versions never change) can diff without another call.
              live_version: engine.liveVersion?.version ?? null,
            }),
          };
        },
      },
    ],
  };
}

/** A response shaped and sized like a routing answer, made without routing (benchmark baseline). */
export function bareRoute(): Route {
  return {
    method: "POST",
    auth: "none",
    async handle(_body: unknown, ctx: RequestContext) {
      return {
        body: {
          success: true,
          gateway_id: "17",
          group_id: 4,
          group_name: "Bench bare endpoint",
          is_fallback: false,
          timestamp: ctx.now.toISOString(),
          session_info: { selection_method: "ROUND_ROBIN", rule_name: "BIN 414720", current_index: 1, total_calls: 58, total_mids: 3, next_gateway_id: "23" },
          bin_info: { bin: "414720", bank: "JPMORGAN CHASE BANK N.A.", card_brand: "VISA", card_type: "DEBIT" },
        },
        // What the routing answer carries from its rate limiter, so both answers have the same size.
        headers: { "X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "599", "X-RateLimit-Reset": String(Math.ceil(ctx.now.getTime() / 1000) + 60) },
      };
    },
  };
}
