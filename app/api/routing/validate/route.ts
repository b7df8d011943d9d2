// POST /api/routing/validate: the service's dry run of a configuration and its diff against the live version; changes nothing (one routing call, counted against the user).
import { apiRoute } from "@/lib/core/route/handler";
import { ValidateRequest } from "@/lib/features/routing/requests";
import { validateChange, workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", schema: ValidateRequest, feature: workspaceFor }, async ({ feature: { deps, user }, body }) => validateChange(deps, user, body.config));
