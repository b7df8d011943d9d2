// POST /api/routing/changes/:id/reject: reject a pending change with a reason (editors; the proposer may withdraw their own).
import { apiRoute } from "@/lib/core/route/handler";
import { RejectRequest, rejectChange, workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", params: ["id"], schema: RejectRequest }, async ({ user: session, params, body }) => {
  const { deps, user } = await workspaceFor(session);
  return rejectChange(deps, user, params.id, body.reason);
});
