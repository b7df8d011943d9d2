// GET /api/monitor: card-network programme ratios per MID for this month and the two before, and alert-aware disputes (?wait=ms long-polls while months are fetched).
import { apiRoute } from "@/lib/api/handler";
import { waitParam } from "@/lib/api/report-route";
import { todayIn } from "@/lib/contract/dates";
import { serverEnv } from "@/lib/env";
import { loadMonitor } from "@/lib/monitor/load";
import { monitorConfig } from "@/lib/monitor/config";
import { getGateway } from "@/lib/upstream";

export const GET = apiRoute({ role: "viewer" }, async ({ user, request }) =>
  loadMonitor(getGateway(), monitorConfig(), todayIn(serverEnv().REPORT_TIMEZONE), user.id, waitParam(request)),
);
