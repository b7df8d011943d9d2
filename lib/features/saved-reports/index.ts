/**
 * Saved reports: listing, saving, changing and deleting them with the permission rules, for the API
 * routes and the /reports page. The store keeps the rows; this module decides who may do what.
 */
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { appendAudit, inTransaction, userActor } from "@/lib/core/audit/log";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { SavedPage, SavedReport } from "@/lib/features/saved-reports/model";
import type { Sql } from "@/lib/core/store/sql";
import { canonicalParams, type SavedReportInput, type SavedReportPatch } from "./input";
import { getEditableReport } from "./access";
import type { NamedItem } from "./names";
import { savedReportItem } from "./view-model";
import type { SavedReportItem } from "./model";

export { canEdit, canView, getVisibleReport } from "./access";
export { canonicalParams, SavedReportInput, SavedReportPatch } from "./input";
export { type SavedReportItem } from "./model";

export async function listSavedReports(db: Sql, user: SessionUser): Promise<SavedReport[]> {
  return savedReportsRepo(db).listVisible(user);
}

/** The user's own saved items of one page, by name: what a new name is checked against. */
export async function ownNames(db: Sql, user: SessionUser, page: SavedPage): Promise<NamedItem[]> {
  return (await listSavedReports(db, user)).filter((r) => r.ownerId === user.id && r.page === page).map((r) => ({ id: r.id, name: r.name }));
}

/** The /reports page's list: each report with what this user may do with it. */
export async function savedReportItems(db: Sql, user: SessionUser): Promise<SavedReportItem[]> {
  return (await listSavedReports(db, user)).map((r) => savedReportItem(user, r));
}

export async function createSavedReport(db: Sql, user: SessionUser, input: SavedReportInput, timeZone: string): Promise<SavedReport> {
  const params = canonicalParams(input.page, input.params, timeZone);
  return inTransaction(db, async (tx) => {
    const report = await savedReportsRepo(tx).create({ ownerId: user.id, name: input.name, page: input.page, params, sharedWithTeam: input.shared_with_team ?? false });
    if (report.sharedWithTeam) await auditTeamSharing(tx, user, report);
    return report;
  });
}

export async function updateSavedReport(db: Sql, user: SessionUser, id: string, patch: SavedReportPatch, timeZone: string): Promise<SavedReport | null> {
  const report = await getEditableReport(db, user, id);
  const params = patch.params !== undefined ? canonicalParams(report.page, patch.params, timeZone) : undefined;
  return inTransaction(db, async (tx) => {
    const updated = await savedReportsRepo(tx).update(report.id, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(params !== undefined ? { params } : {}),
      ...(patch.shared_with_team !== undefined ? { sharedWithTeam: patch.shared_with_team } : {}),
    });
    if (updated && updated.sharedWithTeam !== report.sharedWithTeam) await auditTeamSharing(tx, user, updated);
    return updated;
  });
}

/**
 * Sharing with the whole team opens the report (or dashboard) to every user, so turning it on or off
 * is one audit entry: who, which report, whose, and what kind of page.
 */
async function auditTeamSharing(tx: Sql, user: SessionUser, report: SavedReport): Promise<void> {
  await appendAudit(tx, {
    action: report.sharedWithTeam ? "saved_report.shared" : "saved_report.unshared",
    actor: userActor(user),
    subject: { kind: "saved_report", id: report.id, label: report.name },
    detail: { page: report.page, owner: report.ownerEmail },
  });
}

export async function deleteSavedReport(db: Sql, user: SessionUser, id: string): Promise<{ deleted: string }> {
  const report = await getEditableReport(db, user, id);
  await savedReportsRepo(db).remove(report.id);
  return { deleted: report.id };
}
