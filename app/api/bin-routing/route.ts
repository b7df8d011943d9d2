// POST /api/bin-routing: route a BIN as a real order through the upstream (SPEC.md §4), validated first; analysts only.
import { apiRoute } from "@/lib/api/handler";
import { BinRoutingRequestSchema } from "@/lib/contract";
import { getGateway } from "@/lib/upstream";
import { lookUpBin } from "@/lib/upstream/bin-routing";

export const POST = apiRoute({ role: "analyst", schema: BinRoutingRequestSchema }, async ({ body }) => lookUpBin(getGateway(), body, "route"));
