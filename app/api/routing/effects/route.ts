// GET /api/routing/effects: per applied version, the changed BINs' and banks' approval and chargeback rates before and after, in equal windows (analysts and up).
import { apiRoute } from "@/lib/api/handler";
import { getGateway } from "@/lib/upstream";
import { loadRoutingEffects, workspaceFor } from "@/lib/routing/workspace";

export const GET = apiRoute({ role: "analyst" }, async ({ user: session }) => {
  const { deps } = await workspaceFor(session);
  return loadRoutingEffects(getGateway(), deps.clients);
});
