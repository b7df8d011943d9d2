import "server-only";
/**
 * A BIN lookup (a preview or a real routing call, the BIN lookup page's), a call a user makes one at a
 * time: counted against their share of the dashboard's routing bucket at the service first
 * (lib/core/upstream/routing-allowance.ts), then sent, with its gateways named.
 */
import type { BinRoutingRequest } from "@/lib/contract";
import type { Store } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { takeRoutingCall } from "@/lib/core/upstream/routing-allowance";
import { lookUpBin, type BinAnswer, type LookupMode } from "./upstream";

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
