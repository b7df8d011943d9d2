import "server-only";
/**
 * The routing calls a user makes one at a time, each counted against their share of the
 * dashboard's routing bucket at the service first (lib/features/routing/allowance.ts): a preview of a list
 * of BINs, and a BIN lookup (a preview or a real routing call, the BIN lookup page's).
 */
import type { SessionUser } from "@/lib/core/auth/authenticate";
import type { BinRoutingRequest } from "@/lib/contract";
import { RoutingPreviewRequestSchema, type RoutingPreview } from "@/lib/contract/bin-routing";
import { serverEnv } from "@/lib/core/env/env";
import { getStore } from "@/lib/core/store";
import { lookUpBin, type BinAnswer, type LookupMode } from "@/lib/features/bin-lookup/upstream";
import { previewRouting } from "./upstream";
import { getGateway } from "@/lib/core/upstream";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import type { Store } from "@/lib/core/store/sql";
import { takeRoutingCall } from "./allowance";
import { deeperThan, MAX_CONFIG_DEPTH } from "./requests";
import { takeCall, type WorkspaceDeps } from "./workspace";

/** The preview route's body: the contract's, with a configuration no deeper than any real one. */
export const PreviewRequest = RoutingPreviewRequestSchema.superRefine((body, ctx) => {
  if (deeperThan(body.config, MAX_CONFIG_DEPTH)) {
    ctx.addIssue({ code: "custom", path: ["config"], message: `config is nested deeper than ${MAX_CONFIG_DEPTH} levels; a routing configuration is never that deep` });
  }
});

/** What routing would answer for each BIN under the live and a proposed configuration: one call, counted against `user`. */
export async function previewFor(deps: WorkspaceDeps, user: { id: string }, body: (typeof PreviewRequest)["_output"]): Promise<RoutingPreview> {
  await takeCall(deps, user, { kind: "preview", bins: body.bins.length });
  return previewRouting(body, deps.clients);
}

/** Where a BIN lookup is counted and sent: the store, each user's share, the allowance's clock, and the gateway. */
export interface LookupDeps {
  store: Store;
  callsPerUser: number;
  now?: () => Date;
  gateway: ReportGateway;
}

/** A BIN lookup by `user`: one call, counted against their share of the routing bucket, then the lookup with its gateway names. */
export async function lookUpBinWithin(deps: LookupDeps, user: { id: string }, request: BinRoutingRequest, mode: LookupMode): Promise<BinAnswer> {
  await takeRoutingCall(deps.store, user.id, { kind: "lookup" }, { perUser: deps.callsPerUser, ...(deps.now ? { now: deps.now() } : {}) });
  return lookUpBin(deps.gateway, request, mode);
}

/** The BIN lookup routes' call: the process's store, ROUTING_CALLS_PER_USER and gateway. */
export async function lookUpBinFor(session: Pick<SessionUser, "id">, request: BinRoutingRequest, mode: LookupMode): Promise<BinAnswer> {
  return lookUpBinWithin({ store: await getStore(), callsPerUser: serverEnv().ROUTING_CALLS_PER_USER, gateway: getGateway() }, session, request, mode);
}
