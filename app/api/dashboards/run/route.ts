// POST /api/dashboards/run: one look at a dashboard (?wait=ms to hold for the next answer): the tiles drawn so far, the plan for the rest.
import { apiRoute } from "@/lib/core/route/handler";
import { waitParam } from "@/lib/report/route";
import { DashboardRunInput, runDashboardFor } from "@/lib/features/dashboards/service";
import { noteLook } from "@/lib/features/warming/looks";

export const POST = apiRoute({ role: "viewer", store: true, gateway: true, schema: DashboardRunInput }, async ({ user, body, request, store, env, gateway }) => {
  const answer = await runDashboardFor(store, gateway, user, body, { timeZone: env.REPORT_TIMEZONE, waitMs: waitParam(request) });
  await noteLook(store, env, user.id, { kind: "dashboard", params: body.params });
  return Response.json(answer, { headers: { "Cache-Control": "no-store" } });
});
