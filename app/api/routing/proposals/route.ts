// GET /api/routing/proposals: rules proposed from the last 90 days' evidence (a MID significantly better for a BIN or bank), or where its report waits (analysts and up; its routing calls, previews included, count against the user's share).
import { apiRoute } from "@/lib/core/route/handler";
import { loadRoutingProposals } from "@/lib/features/routing/evidence";
import { countedClients, workspaceFor } from "@/lib/features/routing/workspace";

export const GET = apiRoute({ role: "analyst", feature: workspaceFor, gateway: true }, async ({ feature: { deps, user }, gateway }) => loadRoutingProposals(gateway, { clients: countedClients(deps, user) }));
