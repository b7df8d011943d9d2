// GET /api/routing/proposals: rules proposed from the last 90 days' evidence (a MID significantly better for a BIN or bank), or where its report waits (analysts and up).
import { apiRoute } from "@/lib/api/handler";
import { loadRoutingProposals } from "@/lib/routing/evidence";
import { workspaceFor } from "@/lib/routing/workspace";
import { getGateway } from "@/lib/upstream";

export const GET = apiRoute({ role: "analyst" }, async ({ user: session }) => {
  const { deps } = await workspaceFor(session);
  return loadRoutingProposals(getGateway(), { clients: deps.clients });
});
