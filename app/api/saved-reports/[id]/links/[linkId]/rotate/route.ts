// POST /api/saved-reports/:id/links/:linkId/rotate: a new token for the link; the old one dies at once.
import { apiRoute } from "@/lib/api/handler";
import { rotateShareLink } from "@/lib/sharing/links";
import { getStore } from "@/lib/store";

export const POST = apiRoute({ role: "analyst", params: ["id", "linkId"] }, async ({ user, params, request }) => rotateShareLink(await getStore(), user, params.id, params.linkId, request.url));
