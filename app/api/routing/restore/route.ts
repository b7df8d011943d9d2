// POST /api/routing/restore: bring back an earlier version (default: the one before live) as a new version; pending under the two-person rule.
import { apiRoute } from "@/lib/core/route/handler";
import { proposeRestore, RestoreRequest, workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", schema: RestoreRequest }, async ({ user: session, body }) => {
  const { deps, user } = await workspaceFor(session);
  return Response.json(await proposeRestore(deps, user, body), { status: 201 });
});
