// GET /api/saved-reports/:id (anyone who may see it); PATCH renames/updates, DELETE deletes (owner or admin).
import { apiRoute } from "@/lib/core/route/handler";
import { serverEnv } from "@/lib/core/env/env";
import { deleteSavedReport, getVisibleReport, SavedReportPatch, updateSavedReport } from "@/lib/features/saved-reports";
import { getStore } from "@/lib/core/store";

export const GET = apiRoute({ role: "viewer", params: ["id"] }, async ({ user, params }) => ({
  report: await getVisibleReport(await getStore(), user, params.id),
}));

export const PATCH = apiRoute({ role: "analyst", params: ["id"], schema: SavedReportPatch }, async ({ user, params, body }) => ({
  report: await updateSavedReport(await getStore(), user, params.id, body, serverEnv().REPORT_TIMEZONE),
}));

export const DELETE = apiRoute({ role: "analyst", params: ["id"] }, async ({ user, params }) => deleteSavedReport(await getStore(), user, params.id));
