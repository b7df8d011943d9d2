// GET /api/saved-reports/:id (anyone who may see it); PATCH renames/updates, DELETE deletes (owner or admin).
import { apiRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/contract/errors";
import { canonicalParams, SavedReportPatch } from "@/lib/sharing/http";
import { getEditableReport, getVisibleReport } from "@/lib/sharing/service";
import { getStore } from "@/lib/store";
import { savedReportsRepo } from "@/lib/store/saved-reports";

export const GET = apiRoute<{ id: string }>({ role: "viewer" }, async ({ user, params }) => ({
  report: await getVisibleReport(await getStore(), user, params.id),
}));

export const PATCH = apiRoute<{ id: string }>({ role: "analyst", json: true }, async ({ user, params, body }) => {
  const db = await getStore();
  const report = await getEditableReport(db, user, params.id);
  const patch = ApiError.parse(SavedReportPatch, body);
  const updated = await savedReportsRepo(db).update(report.id, {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.params !== undefined ? { params: canonicalParams(report.page, patch.params) } : {}),
    ...(patch.shared_with_team !== undefined ? { sharedWithTeam: patch.shared_with_team } : {}),
  });
  return { report: updated };
});

export const DELETE = apiRoute<{ id: string }>({ role: "analyst" }, async ({ user, params }) => {
  const db = await getStore();
  const report = await getEditableReport(db, user, params.id);
  await savedReportsRepo(db).remove(report.id);
  return { deleted: report.id };
});
