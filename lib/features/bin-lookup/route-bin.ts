/** The BIN lookup's call from the browser (the API client's conventions), apart from it so the report pages do not load it. */
import type { BinRoutingRequest } from "@/lib/contract/schemas";
import { errorFrom, JSON_HEADERS, send } from "@/lib/core/api-client/fetch";
import type { LookupMode } from "./lookup";
import type { BinAnswer } from "./upstream";

/** A BIN lookup: `preview` moves nothing; `route` routes as a real order (advances the rotation). */
export async function routeBin(body: BinRoutingRequest, mode: LookupMode, signal?: AbortSignal): Promise<BinAnswer> {
  const url = mode === "preview" ? "/api/bin-lookup/preview" : "/api/bin-lookup";
  const res = await send(url, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as BinAnswer;
}
