// GET /api/monitor: card-network programme ratios per MID for this month and the two before, and alert-aware disputes (?wait=ms long-polls while months are fetched).
import { apiRoute } from "@/lib/core/route/handler";
import { waitParam } from "@/lib/report/route";
import { todayIn } from "@/lib/contract/dates";
import { serverEnv } from "@/lib/core/env/env";
import { loadMonitor } from "@/lib/features/monitor/load";
import { monitorConfig } from "@/lib/features/monitor/config";
import { getGateway } from "@/lib/core/upstream";
import { noteLook } from "@/lib/features/warming/looks";

export const GET = apiRoute({ role: "viewer", store: true }, async ({ user, request, store }) => {
  const answer = await loadMonitor(getGateway(), monitorConfig(), todayIn(serverEnv().REPORT_TIMEZONE), user.id, waitParam(request));
  await noteLook(store, user.id, { kind: "monitor", params: "" });
  return answer;
});
