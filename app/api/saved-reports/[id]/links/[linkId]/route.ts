// DELETE /api/saved-reports/:id/links/:linkId: revoke a share link at once (owner or admin).
import { apiRoute } from "@/lib/core/route/handler";
import { revokeShareLink } from "@/lib/features/sharing/links";
import { getStore } from "@/lib/core/store";

export const DELETE = apiRoute({ role: "analyst", params: ["id", "linkId"] }, async ({ user, params }) => revokeShareLink(await getStore(), user, params.id, params.linkId));
