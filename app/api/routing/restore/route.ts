// POST /api/routing/restore: bring back an earlier version (default: the one before live) as a new version; pending under the two-person rule.
import { apiRoute } from "@/lib/core/route/handler";
import { proposeRestore } from "@/lib/features/routing/changes";
import { RestoreRequest } from "@/lib/features/routing/requests";
import { workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", schema: RestoreRequest, feature: workspaceFor }, async ({ feature: { deps, user }, body }) => Response.json(await proposeRestore(deps, user, body), { status: 201 }));
