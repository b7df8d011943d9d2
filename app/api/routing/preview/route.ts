// POST /api/routing/preview: for a list of BINs, the live and a proposed configuration's decisions; no rotation advances (analysts and up, within each user's share of routing calls).
import { apiRoute } from "@/lib/core/route/handler";
import { PreviewRequest, previewFor } from "@/lib/features/routing/calls";
import { workspaceFor } from "@/lib/features/routing/workspace";

export const POST = apiRoute({ role: "analyst", schema: PreviewRequest, feature: workspaceFor }, async ({ feature: { deps, user }, body }) => previewFor(deps, user, body));
