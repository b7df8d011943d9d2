// GET /api/reports/suggestions?dimension=gateway_id: values of a dimension seen in answers the dashboard already fetched (no upstream call).
import { apiRoute } from "@/lib/core/route/handler";
import { ApiError } from "@/lib/contract/errors";
import { SUGGESTED_DIMENSIONS } from "@/lib/contract/dimensions";

export const GET = apiRoute({ role: "analyst", gateway: true }, async ({ request, gateway }) => {
  const dimension = new URL(request.url).searchParams.get("dimension") ?? "";
  if (!SUGGESTED_DIMENSIONS.includes(dimension)) {
    throw ApiError.badRequest(`dimension must be one of ${SUGGESTED_DIMENSIONS.join(", ")}`, [{ path: "dimension", message: "not a dimension with suggestions" }]);
  }
  const seen = gateway.seen;
  return { dimension, values: seen.values(dimension), ...seen.coverage(dimension) };
});
