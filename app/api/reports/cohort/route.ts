// POST /api/reports/cohort: run a cohort summary (initial date) through the quota-aware gateway.
import { apiRoute } from "@/lib/api/handler";
import { submitReport } from "@/lib/upstream/report-route";

export const POST = apiRoute({ role: "analyst", json: true }, async ({ body }) => submitReport("cohort", body));
