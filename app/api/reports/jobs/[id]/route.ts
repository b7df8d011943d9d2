// GET /api/reports/jobs/:id: a report job's status and, when done, its records (?wait=ms long-polls). DELETE cancels it.
// The id is the caller's own handle to the job (lib/core/upstream/gateway.ts): another user's is not found.
import { apiRoute } from "@/lib/core/route/handler";
import { ApiError } from "@/lib/contract/errors";
import { waitParam } from "@/lib/report/route";

const notFound = () => new ApiError(404, "No such report job; it may have expired. Run the report again.");

export const GET = apiRoute({ role: "analyst", params: ["id"], timing: true, gateway: true }, async ({ user, params, request, gateway }) => {
  const job = await gateway.settle(params.id, waitParam(request), user.id);
  if (!job) throw notFound();
  return job;
});

export const DELETE = apiRoute({ role: "analyst", params: ["id"], gateway: true }, async ({ user, params, gateway }) => {
  const job = gateway.cancel(params.id, user.id);
  if (!job) throw notFound();
  return job;
});
