// DELETE /api/saved-reports/:id/links/:linkId: revoke a share link at once (owner or admin).
import { apiRoute } from "@/lib/core/route/handler";
import { revokeShareLink } from "@/lib/features/sharing/links";

export const DELETE = apiRoute({ role: "analyst", store: true, params: ["id", "linkId"] }, async ({ user, params, store }) => revokeShareLink(store, user, params.id, params.linkId));
