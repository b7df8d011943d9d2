// DELETE /api/saved-reports/:id/links/:linkId: revoke a share link at once (owner or admin).
import { apiRoute } from "@/lib/api/handler";
import { revokeShareLink } from "@/lib/sharing/links";
import { getStore } from "@/lib/store";

export const DELETE = apiRoute({ role: "analyst", params: ["id", "linkId"] }, async ({ user, params }) => revokeShareLink(await getStore(), user, params.id, params.linkId));
