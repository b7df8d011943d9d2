// GET /api/saved-reports: the saved reports this user may open. POST: save the current report (analysts).
import { apiRoute } from "@/lib/core/route/handler";
import { createSavedReport, listSavedReports, SavedReportInput } from "@/lib/features/saved-reports";

export const GET = apiRoute({ role: "viewer", store: true }, async ({ user, store }) => ({ reports: await listSavedReports(store, user) }));

export const POST = apiRoute({ role: "analyst", store: true, schema: SavedReportInput }, async ({ user, body, store, env }) =>
  Response.json({ report: await createSavedReport(store, user, body, env.REPORT_TIMEZONE) }, { status: 201 }),
);
