// GET /api/routing/effects: per applied version, the changed BINs' and banks' approval and chargeback rates before and after, in equal windows (analysts and up; its versions read counts against the user's routing calls).
import { apiRoute } from "@/lib/api/handler";
import { getGateway } from "@/lib/upstream";
import { loadRoutingEffects, takeCall, workspaceFor } from "@/lib/routing/workspace";

export const GET = apiRoute({ role: "analyst" }, async ({ user: session }) => {
  const { deps, user } = await workspaceFor(session);
  await takeCall(deps, user, { kind: "read" });
  return loadRoutingEffects(getGateway(), deps.clients);
});
