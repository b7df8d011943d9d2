// POST /api/bin-routing/preview: which gateway a BIN would get, without advancing any rotation (the service's preview extension); analysts only.
import { apiRoute } from "@/lib/api/handler";
import { BinRoutingRequestSchema } from "@/lib/contract";
import { getGateway } from "@/lib/upstream";
import { lookUpBin } from "@/lib/upstream/bin-routing";

export const POST = apiRoute({ role: "analyst", schema: BinRoutingRequestSchema }, async ({ body }) => lookUpBin(getGateway(), body, "preview"));
