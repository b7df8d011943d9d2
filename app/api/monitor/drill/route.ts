// GET /api/monitor/drill?program=&gateway=&brand=&month=: one MID's daily ratio and its chargebacks by BIN and bank (viewers; ?wait=ms long-polls).
import { apiRoute } from "@/lib/core/route/handler";
import { waitParam } from "@/lib/report/route";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { DrillInput, loadDrill } from "@/lib/features/monitor/drill";
import { monitorConfig } from "@/lib/features/monitor/config";

export const GET = apiRoute({ role: "viewer", gateway: true }, async ({ user, request, env, gateway }) => {
  const q = new URL(request.url).searchParams;
  const input = ApiError.parse(DrillInput, { program: q.get("program"), gateway: q.get("gateway"), brand: q.get("brand"), month: q.get("month") });
  return loadDrill(gateway, monitorConfig(), todayIn(env.REPORT_TIMEZONE), user.id, waitParam(request), input);
});
