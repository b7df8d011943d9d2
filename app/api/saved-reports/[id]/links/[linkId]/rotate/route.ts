// POST /api/saved-reports/:id/links/:linkId/rotate: a new token for the link; the old one dies at once
// (a scheduled report that mails the link follows it to the new one).
import { apiRoute } from "@/lib/api/handler";
import { shareSecret } from "@/lib/sharing/http";
import { rotateShareLink } from "@/lib/sharing/links";
import { getStore } from "@/lib/store";

export const POST = apiRoute({ role: "analyst", params: ["id", "linkId"] }, async ({ user, params, request }) =>
  rotateShareLink(await getStore(), user, params.id, params.linkId, request.url, shareSecret()),
);
