// POST /api/dashboards/run: one look at a dashboard (?wait=ms to hold for the next answer): the tiles drawn so far, the plan for the rest.
import { apiRoute } from "@/lib/api/handler";
import { waitParam } from "@/lib/api/report-route";
import { DashboardRunInput, runDashboardFor } from "@/lib/dashboards/service";
import { serverEnv } from "@/lib/env";
import { getStore } from "@/lib/store";
import { getGateway } from "@/lib/upstream";

export const POST = apiRoute({ role: "viewer", schema: DashboardRunInput }, async ({ user, body, request }) => {
  const env = serverEnv();
  const answer = await runDashboardFor(await getStore(), getGateway(), user, body, { timeZone: env.REPORT_TIMEZONE, waitMs: waitParam(request) });
  return Response.json(answer, { headers: { "Cache-Control": "no-store" } });
});
