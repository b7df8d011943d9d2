// GET /api/saved-reports: the saved reports this user may open. POST: save the current report (analysts).
import { apiRoute } from "@/lib/api/handler";
import { serverEnv } from "@/lib/env";
import { createSavedReport, listSavedReports, SavedReportInput } from "@/lib/saved-reports";
import { getStore } from "@/lib/store";

export const GET = apiRoute({ role: "viewer" }, async ({ user }) => ({ reports: await listSavedReports(await getStore(), user) }));

export const POST = apiRoute({ role: "analyst", schema: SavedReportInput }, async ({ user, body }) =>
  Response.json({ report: await createSavedReport(await getStore(), user, body, serverEnv().REPORT_TIMEZONE) }, { status: 201 }),
);
