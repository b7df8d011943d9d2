// POST /api/saved-reports/:id/links/:linkId/rotate: a new token for the link; the old one dies at once.
import { apiRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/contract/errors";
import { getEditableReport } from "@/lib/sharing/service";
import { hashToken, newShareToken } from "@/lib/sharing/tokens";
import { getStore } from "@/lib/store";
import { publicLink, shareLinksRepo } from "@/lib/store/share-links";

export const POST = apiRoute<{ id: string; linkId: string }>({ role: "analyst" }, async ({ user, params, request }) => {
  const db = await getStore();
  const report = await getEditableReport(db, user, params.id);
  const links = shareLinksRepo(db);
  const link = await links.get(params.linkId);
  if (!link || link.reportId !== report.id) throw new ApiError(404, "No such share link");
  if (link.revokedAt) throw new ApiError(400, "A revoked link cannot be rotated; create a new one");
  const token = newShareToken();
  await links.rotate(link.id, hashToken(token));
  return { link: publicLink((await links.get(link.id))!), token, url: new URL(`/share/${token}`, request.url).toString() };
});
