// POST /api/bin-lookup: route a BIN as a real order through the upstream (SPEC.md §4), validated first; analysts only, within each user's share of routing calls.
import { apiRoute } from "@/lib/core/route/handler";
import { BinRoutingRequestSchema } from "@/lib/contract";
import { lookUpBinWithin } from "@/lib/features/bin-lookup/calls";

export const POST = apiRoute({ role: "analyst", schema: BinRoutingRequestSchema, store: true, gateway: true }, async ({ user, body, env, store, gateway }) =>
  lookUpBinWithin({ store, gateway, callsPerUser: env.ROUTING_CALLS_PER_USER }, user, body, "route"),
);
