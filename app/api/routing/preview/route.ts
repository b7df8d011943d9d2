// POST /api/routing/preview: for a list of BINs, the live and a proposed configuration's decisions; no rotation advances (analysts and up).
import { apiRoute } from "@/lib/api/handler";
import { RoutingPreviewRequestSchema } from "@/lib/contract/bin-routing";
import { workspaceFor } from "@/lib/routing/workspace";
import { previewRouting } from "@/lib/upstream/bin-routing";

export const POST = apiRoute({ role: "analyst", schema: RoutingPreviewRequestSchema }, async ({ user: session, body }) => {
  const { deps } = await workspaceFor(session);
  return previewRouting(body, deps.clients);
});
