// POST /api/reports/cohort: run a cohort summary (initial date) through the quota-aware gateway (?wait=ms to hold for the answer).
import { apiRoute } from "@/lib/api/handler";
import { submitReport, waitParam } from "@/lib/api/report-route";

export const POST = apiRoute({ role: "analyst", json: true, timing: true }, async ({ user, body, request }) => submitReport("cohort", body, waitParam(request), user.id));
