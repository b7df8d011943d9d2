/** A saved report as the /reports list shows it: what the signed-in user may do with it decided here. */
import type { SavedPage, SavedReport } from "@/lib/features/saved-reports/store";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { canEdit } from "./access";

export interface SavedReportItem {
  id: string;
  name: string;
  page: SavedPage;
  params: string;
  ownerEmail: string;
  sharedWithTeam: boolean;
  updatedAt: string;
  canEdit: boolean;
  /** Analysts and admins open it in the report builder; viewers get the read-only view. */
  canBuild: boolean;
}

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
