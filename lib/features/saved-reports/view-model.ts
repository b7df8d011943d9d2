/** A saved report as the /reports list shows it: what the signed-in user may do with it decided here. */
import type { SavedReport, SavedReportItem } from "./model";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { canEdit } from "./access";

export function savedReportItem(user: SessionUser, r: SavedReport): SavedReportItem {
  return {
    id: r.id,
    name: r.name,
    page: r.page,
    params: r.params,
    ownerEmail: r.ownerEmail,
    sharedWithTeam: r.sharedWithTeam,
    updatedAt: r.updatedAt,
    canEdit: canEdit(user, r),
    canBuild: user.role !== "viewer",
  };
}
