import "server-only";
/**
 * The dashboard's BIN lookups: a preview (which gateway a BIN would get, nothing advances) or a real
 * routing call, through the upstream client, with upstream errors in a user's words and gateway ids
 * named as reports name them (their gateway_alias).
 */
import { addDays, todayIn, type BinRoutingRequest, type BinRoutingResponse } from "@/lib/contract";
import { upstreamApiError } from "./errors";
import type { ReportGateway } from "./gateway";

import type { LookupMode } from "@/lib/bin-lookup";

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
