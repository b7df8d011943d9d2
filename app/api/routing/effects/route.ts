// GET /api/routing/effects: per applied version, the changed BINs' and banks' approval and chargeback rates before and after, in equal windows (analysts and up; its routing calls count against the user's share).
import { apiRoute } from "@/lib/core/route/handler";
import { getGateway } from "@/lib/core/upstream";
import { countedClients, loadRoutingEffects, workspaceFor } from "@/lib/features/routing/workspace";

export const GET = apiRoute({ role: "analyst" }, async ({ user: session }) => {
  const { deps, user } = await workspaceFor(session);
  return loadRoutingEffects(getGateway(), countedClients(deps, user));
});
