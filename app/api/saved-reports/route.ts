// GET /api/saved-reports: the saved reports this user may open. POST: save the current report (analysts).
import { apiRoute } from "@/lib/core/route/handler";
import { serverEnv } from "@/lib/core/env/env";
import { createSavedReport, listSavedReports, SavedReportInput } from "@/lib/features/saved-reports";
import { getStore } from "@/lib/core/store";

export const GET = apiRoute({ role: "viewer" }, async ({ user }) => ({ reports: await listSavedReports(await getStore(), user) }));

export const POST = apiRoute({ role: "analyst", schema: SavedReportInput }, async ({ user, body }) =>
  Response.json({ report: await createSavedReport(await getStore(), user, body, serverEnv().REPORT_TIMEZONE) }, { status: 201 }),
);
