// GET /api/routing: the routing workspace: live configuration, versions, pending changes and what this user may do (analysts and up).
import { apiRoute } from "@/lib/core/route/handler";
import { loadWorkspace, workspaceFor } from "@/lib/features/routing/workspace";

export const GET = apiRoute({ role: "analyst", feature: workspaceFor }, async ({ feature: { deps, user } }) => loadWorkspace(deps, user));
