/**
 * Who may open and who may change a saved report. Admins may do everything; an analyst edits their
 * own; everyone sees their own and the team's. Missing and not-yours answer alike (404), so ids are
 * not a way to probe for reports.
 */
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { ApiError } from "@/lib/contract/errors";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import type { Sql } from "@/lib/core/store/sql";

export function canEdit(user: SessionUser, report: SavedReport): boolean {
  return user.role === "admin" || (user.role === "analyst" && report.ownerId === user.id);
}

export function canView(user: SessionUser, report: SavedReport): boolean {
  return user.role === "admin" || report.ownerId === user.id || report.sharedWithTeam;
}

export async function getVisibleReport(db: Sql, user: SessionUser, id: string): Promise<SavedReport> {
  const report = await savedReportsRepo(db).get(id);
  if (!report || !canView(user, report)) throw new ApiError(404, "No such saved report");
  return report;
}

export async function getEditableReport(db: Sql, user: SessionUser, id: string): Promise<SavedReport> {
  const report = await getVisibleReport(db, user, id);
  if (!canEdit(user, report)) throw new ApiError(403, "Only the report's owner or an admin can change it");
  return report;
}
