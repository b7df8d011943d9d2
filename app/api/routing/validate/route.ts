// POST /api/routing/validate: the service's dry run of a configuration and its diff against the live version; changes nothing (one routing call, counted against the user).
import { apiRoute } from "@/lib/core/route/handler";
import { validateChange, ValidateRequest, workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", schema: ValidateRequest }, async ({ user: session, body }) => {
  const { deps, user } = await workspaceFor(session);
  return validateChange(deps, user, body.config);
});
