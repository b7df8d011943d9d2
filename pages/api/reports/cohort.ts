// POST /api/reports/cohort: run a cohort summary (initial date) through the quota-aware gateway (?wait=ms to hold for the answer).
// Served by the Pages Router for its lighter request handling (lib/api/pages-route.ts); the handler is an `apiRoute` as elsewhere.
import { apiRoute } from "@/lib/api/handler";
import { pagesRoute } from "@/lib/api/pages-route";
import { submitReport, waitParam } from "@/lib/api/report-route";

// The body is read by pagesRoute (bounded, as text); an answer is at most one page of records.
export const config = { api: { bodyParser: false, responseLimit: false } };

export default pagesRoute({
  POST: apiRoute({ role: "analyst", text: true, timing: true }, async ({ user, body, request }) => submitReport("cohort", body, waitParam(request), user.id)),
});
