// POST /api/routing/changes/:id/approve: approve another editor's pending change and apply it (409 when the live version moved on: superseded).
import { apiRoute } from "@/lib/core/route/handler";
import { approveChange } from "@/lib/features/routing/changes";
import { workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", params: ["id"], feature: workspaceFor }, async ({ feature: { deps, user }, params }) => approveChange(deps, user, params.id));
