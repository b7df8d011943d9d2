// GET /api/routing: the routing workspace: live configuration, versions, pending changes and what this user may do (analysts and up).
import { apiRoute } from "@/lib/core/route/handler";
import { loadWorkspace, workspaceFor } from "@/lib/features/routing/workspace";

export const GET = apiRoute({ role: "analyst" }, async ({ user: session }) => {
  const { deps, user } = await workspaceFor(session);
  return loadWorkspace(deps, user);
});
