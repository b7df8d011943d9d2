/**
 * The service's routing endpoints as routes of its table (service/app.ts): the routing call, the
 * preview extension, and the benchmark's bare baseline. The engine itself knows nothing of HTTP.
 */
import { BinRoutingRequestSchema } from "@/lib/contract/schemas";
import { ApiError } from "@/lib/contract/errors";
import type { RequestContext, Route } from "../http/server";
import type { RoutingEngine } from "./engine";

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
