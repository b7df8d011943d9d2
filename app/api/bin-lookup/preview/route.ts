// POST /api/bin-lookup/preview: which gateway a BIN would get, without advancing any rotation (the service's preview extension); analysts only, within each user's share of routing calls.
import { apiRoute } from "@/lib/core/route/handler";
import { BinRoutingRequestSchema } from "@/lib/contract";
import { lookUpBinFor } from "@/lib/features/bin-lookup/calls";

export const POST = apiRoute({ role: "analyst", schema: BinRoutingRequestSchema }, async ({ user, body }) => lookUpBinFor(user, body, "preview"));
