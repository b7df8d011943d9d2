// GET /api/monitor: card-network programme ratios per MID for this month and the two before, and alert-aware disputes (?wait=ms long-polls while months are fetched).
import { apiRoute } from "@/lib/core/route/handler";
import { waitParam } from "@/lib/report/route";
import { todayIn } from "@/lib/contract/dates";
import { loadMonitor } from "@/lib/features/monitor/load";
import { monitorConfig } from "@/lib/features/monitor/config";
import { noteLook } from "@/lib/features/warming/looks";

export const GET = apiRoute({ role: "viewer", store: true, gateway: true }, async ({ user, request, store, env, gateway }) => {
  const answer = await loadMonitor(gateway, monitorConfig(), todayIn(env.REPORT_TIMEZONE), user.id, waitParam(request));
  await noteLook(store, env, user.id, { kind: "monitor", params: "" });
  return answer;
});
