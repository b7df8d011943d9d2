// POST /api/saved-reports/:id/links/:linkId/rotate: a new token for the link; the old one dies at once
// (a scheduled report that mails the link follows it to the new one).
import { apiRoute } from "@/lib/core/route/handler";
import { shareSecret } from "@/lib/features/sharing/http";
import { subscriptionsFollowingLink } from "@/lib/features/notifications/subscriptions";
import { rotateShareLink } from "@/lib/features/sharing/links";

export const POST = apiRoute({ role: "analyst", store: true, params: ["id", "linkId"] }, async ({ user, params, request, store }) =>
  rotateShareLink(store, user, params.id, params.linkId, request.url, subscriptionsFollowingLink(shareSecret())),
);
