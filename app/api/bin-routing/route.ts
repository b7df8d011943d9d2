// POST /api/bin-routing: route a BIN through the upstream (SPEC.md §4), validated first; analysts only.
import { BinRoutingRequestSchema } from "@/lib/contract";
import { apiRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/errors";
import { getGateway } from "@/lib/upstream";
import { UpstreamError } from "@/lib/upstream/client";

export const POST = apiRoute({ role: "analyst", json: true }, async ({ body }) => {
  const parsed = BinRoutingRequestSchema.safeParse(body);
  if (!parsed.success) throw ApiError.fromZod(parsed.error);
  try {
    return await getGateway().client.route(parsed.data);
  } catch (e) {
    if (e instanceof UpstreamError) {
      if (e.status === 400) throw new ApiError(400, e.message, e.details);
      if (e.status === 429) throw new ApiError(429, "Too many BIN lookups; wait a moment.", undefined, { "Retry-After": String(e.retryAfterSeconds ?? 1) }, { retry_after: e.retryAfterSeconds ?? 1 });
      if (e.status === 503) throw new ApiError(503, "No gateway is available for this BIN (the fallback group has no active member).");
      throw new ApiError(500, `BIN routing failed upstream: ${e.message}`);
    }
    throw e;
  }
});
