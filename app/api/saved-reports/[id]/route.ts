// GET /api/saved-reports/:id (anyone who may see it); PATCH renames/updates, DELETE deletes (owner or admin).
import { apiRoute } from "@/lib/core/route/handler";
import { deleteSavedReport, getVisibleReport, SavedReportPatch, updateSavedReport } from "@/lib/features/saved-reports";

export const GET = apiRoute({ role: "viewer", store: true, params: ["id"] }, async ({ user, params, store }) => ({
  report: await getVisibleReport(store, user, params.id),
}));

export const PATCH = apiRoute({ role: "analyst", store: true, params: ["id"], schema: SavedReportPatch }, async ({ user, params, body, store, env }) => ({
  report: await updateSavedReport(store, user, params.id, body, env.REPORT_TIMEZONE),
}));

export const DELETE = apiRoute({ role: "analyst", store: true, params: ["id"] }, async ({ user, params, store }) => deleteSavedReport(store, user, params.id));
