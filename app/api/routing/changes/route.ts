// POST /api/routing/changes: propose a configuration change (pending under the two-person rule, else applied at once); editors only.
import { apiRoute } from "@/lib/core/route/handler";
import { proposeChange } from "@/lib/features/routing/changes";
import { ChangeRequest } from "@/lib/features/routing/requests";
import { workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", schema: ChangeRequest, feature: workspaceFor }, async ({ feature: { deps, user }, body }) => Response.json(await proposeChange(deps, user, body), { status: 201 }));
