// POST /api/routing/changes: propose a configuration change (pending under the two-person rule, else applied at once); editors only.
import { apiRoute } from "@/lib/core/route/handler";
import { ChangeRequest, proposeChange, workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", schema: ChangeRequest }, async ({ user: session, body }) => {
  const { deps, user } = await workspaceFor(session);
  return Response.json(await proposeChange(deps, user, body), { status: 201 });
});
