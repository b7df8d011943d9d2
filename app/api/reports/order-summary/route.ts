// POST /api/reports/order-summary: run an order summary (event date) through the quota-aware gateway (?wait=ms to hold for the answer).
import { apiRoute, otherMethodsThanPost } from "@/lib/core/route/handler";
import { submitReport, waitParam } from "@/lib/report/route";

export const POST = apiRoute({ role: "analyst", text: true, timing: true }, async ({ user, body, request }) => submitReport("orders", body, waitParam(request), user.id));

// Any other method: the contract's 405 envelope, as every answer of this route is.
export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethodsThanPost();
