// GET /api/audit: the audit log, newest first, filtered (kind, actor, subject, from, to as calendar
// days in the reporting time zone) and paged (before, limit); with format=csv every matching entry as
// a CSV download (admins).
import { apiRoute } from "@/lib/core/route/handler";
import { ApiError } from "@/lib/contract/errors";
import { auditCsv, parseAuditQuery, readAuditLog } from "@/lib/features/audit/query";

export const GET = apiRoute({ role: "admin", store: true }, async ({ request, store, env }) => {
  const params = new URL(request.url).searchParams;
  const format = params.get("format") ?? "json";
  if (format !== "json" && format !== "csv") throw ApiError.badRequest("format must be json or csv", [{ path: "format", message: "json or csv" }]);
  const query = parseAuditQuery(params, env.REPORT_TIMEZONE);
  const headers = { "Cache-Control": "no-store" };
  if (format === "json") return Response.json(await readAuditLog(store, query, env.REPORT_TIMEZONE, env.AUDIT_RETENTION_DAYS), { headers });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(await auditCsv(store, query, env.REPORT_TIMEZONE), {
    headers: { ...headers, "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="audit-log-${day}.csv"` },
  });
});
