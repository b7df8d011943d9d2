// POST /api/saved-reports/:id/links/:linkId/rotate: a new token for the link; the old one dies at once
// (a scheduled report that mails the link follows it to the new one).
import { apiRoute } from "@/lib/core/route/handler";
import { shareSecret } from "@/lib/features/sharing/http";
import { subscriptionsFollowingLink } from "@/lib/features/notifications/subscriptions";
import { rotateShareLink } from "@/lib/features/sharing/links";
import { getStore } from "@/lib/core/store";

export const POST = apiRoute({ role: "analyst", params: ["id", "linkId"] }, async ({ user, params, request }) =>
  rotateShareLink(await getStore(), user, params.id, params.linkId, request.url, subscriptionsFollowingLink(shareSecret())),
);
