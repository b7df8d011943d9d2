// GET /api/routing/effects: per applied version, the changed BINs' and banks' approval and chargeback rates before and after, in equal windows (analysts and up; its routing calls count against the user's share).
import { apiRoute } from "@/lib/core/route/handler";
import { loadRoutingEffects } from "@/lib/features/routing/effects-load";
import { countedClients, workspaceFor } from "@/lib/features/routing/workspace";

export const GET = apiRoute({ role: "analyst", feature: workspaceFor, gateway: true }, async ({ feature: { deps, user }, gateway }) => loadRoutingEffects(gateway, countedClients(deps, user)));
