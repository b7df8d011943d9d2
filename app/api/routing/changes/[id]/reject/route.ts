// POST /api/routing/changes/:id/reject: reject a pending change with a reason (editors; the proposer may withdraw their own).
import { apiRoute } from "@/lib/core/route/handler";
import { rejectChange } from "@/lib/features/routing/changes";
import { RejectRequest } from "@/lib/features/routing/requests";
import { workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", params: ["id"], schema: RejectRequest, feature: workspaceFor }, async ({ feature: { deps, user }, params, body }) => rejectChange(deps, user, params.id, body.reason));
