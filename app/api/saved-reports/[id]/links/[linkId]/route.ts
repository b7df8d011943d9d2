// DELETE /api/saved-reports/:id/links/:linkId: revoke a share link at once (owner or admin).
import { apiRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/contract/errors";
import { getEditableReport } from "@/lib/sharing/service";
import { getStore } from "@/lib/store";
import { publicLink, shareLinksRepo } from "@/lib/store/share-links";

export const DELETE = apiRoute<{ id: string; linkId: string }>({ role: "analyst" }, async ({ user, params }) => {
  const db = await getStore();
  const report = await getEditableReport(db, user, params.id);
  const links = shareLinksRepo(db);
  const link = await links.get(params.linkId);
  if (!link || link.reportId !== report.id) throw new ApiError(404, "No such share link");
  await links.revoke(link.id);
  return { link: publicLink((await links.get(link.id))!) };
});
