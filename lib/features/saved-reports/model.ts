/**
 * Saved reports (and dashboards) as the pages and the API see them: the pages one can reopen, a saved
 * report, and an item of the /reports list. Types and constants only: the browser imports them, the
 * store (./store.ts) reads its rows into them.
 */

/** The report pages a saved report can reopen; the store, the API schemas and the views read this list. */
export const SAVED_PAGES = ["explore", "cohorts", "monitor", "dashboard"] as const;
export type SavedPage = (typeof SAVED_PAGES)[number];

export interface SavedReport {
  id: string;
  ownerId: string;
  ownerEmail: string;
  name: string;
  page: SavedPage;
  params: string;
  sharedWithTeam: boolean;
  createdAt: string;
  updatedAt: string;
}

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
