/** The BIN lookup's call (./fetch.ts's conventions), apart from it so the report pages do not load it. */
import type { BinRoutingRequest } from "@/lib/contract/schemas";
import { errorFrom, JSON_HEADERS, send, type BinAnswer, type LookupMode } from "./fetch";

/** A BIN lookup: `preview` moves nothing; `route` routes as a real order (advances the rotation). */
export async function routeBin(body: BinRoutingRequest, mode: LookupMode, signal?: AbortSignal): Promise<BinAnswer> {
  const url = mode === "preview" ? "/api/bin-routing/preview" : "/api/bin-routing";
  const res = await send(url, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as BinAnswer;
}
