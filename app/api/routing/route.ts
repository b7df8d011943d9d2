// GET /api/routing: the routing workspace: live configuration, versions, pending changes and what this user may do (analysts and up).
import { apiRoute } from "@/lib/api/handler";
import { loadWorkspace, workspaceFor } from "@/lib/routing/workspace";

export const GET = apiRoute({ role: "analyst" }, async ({ user: session }) => {
  const { deps, user } = await workspaceFor(session);
  return loadWorkspace(deps, user);
});
