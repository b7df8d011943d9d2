// GET /api/upstream/status: the reporting quota as this dashboard sees it (calls in the window, next slot, queue).
import { apiRoute } from "@/lib/core/route/handler";

export const GET = apiRoute({ role: "analyst", gateway: true }, async ({ gateway }) => gateway.status());
