// GET /api/routing/proposals: rules proposed from the last 90 days' evidence (a MID significantly better for a BIN or bank), or where its report waits (analysts and up; its live read counts against the user's routing calls).
import { apiRoute } from "@/lib/api/handler";
import { loadRoutingProposals } from "@/lib/routing/evidence";
import { takeCall, workspaceFor } from "@/lib/routing/workspace";
import { getGateway } from "@/lib/upstream";

export const GET = apiRoute({ role: "analyst" }, async ({ user: session }) => {
  const { deps, user } = await workspaceFor(session);
  await takeCall(deps, user, { kind: "read" });
  return loadRoutingProposals(getGateway(), { clients: deps.clients });
});
