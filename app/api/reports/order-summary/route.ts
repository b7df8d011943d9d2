// POST /api/reports/order-summary: run an order summary (event date) through the quota-aware gateway (?wait=ms to hold for the answer).
import { apiRoute } from "@/lib/api/handler";
import { submitReport, waitParam } from "@/lib/api/report-route";

// Always answered per request (a POST); said outright so Next.js hands the handler its request as
// is, rather than behind the proxy that watches a route that might be static (its "auto" mode).
export const dynamic = "force-dynamic";

export const POST = apiRoute({ role: "analyst", text: true, timing: true }, async ({ user, body, request }) => submitReport("orders", body, waitParam(request), user.id));
