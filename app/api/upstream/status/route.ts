// GET /api/upstream/status: the reporting quota as this dashboard sees it (calls in the window, next slot, queue).
import { apiRoute } from "@/lib/core/route/handler";
import { getGateway } from "@/lib/core/upstream";

export const GET = apiRoute({ role: "analyst" }, async () => getGateway().status());
