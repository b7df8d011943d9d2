"use client";
/** The saved reports a user can open; owners (and admins) rename, delete and share them. */
import { apiFetch } from "@/lib/core/api-client/fetch";
import { useState, type ComponentType } from "react";
import { Button } from "@/components/ui/button";
import { NameDialog } from "./name-dialog";
import type { SavedPage, SavedReportItem } from "@/lib/features/saved-reports/model";

/**
 * A saved report's share links panel, passed in by the page that draws the list (sharing's
 * `LazyShareLinks`): sharing's shared views draw dashboards, cohorts and the Monitor, which use
 * this folder's save buttons, so this folder does not import sharing.
 */
export type ShareLinksSlot = ComponentType<{ reportId: string; page: SavedPage }>;


const PAGE_NAMES: Record<SavedReportItem["page"], string> = { explore: "Explore", cohorts: "Cohorts", monitor: "Monitor", dashboard: "Dashboard" };

/** Where a saved item opens: its page (analysts build, viewers read), the Monitor, or the dashboard. */
function hrefOf(r: SavedReportItem): string {
  if (r.page === "monitor") return "/monitor";
  if (r.page === "dashboard") return `/dashboards/${r.id}`;
  return r.canBuild ? `/${r.page}?${r.params}` : `/reports/${r.id}`;
}

export function SavedReportList({ initial, empty, shareLinks: ShareLinks }: { initial: SavedReportItem[]; empty?: string; shareLinks: ShareLinksSlot }) {
  const [items, setItems] = useState(initial);
  const [sharing, setSharing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<SavedReportItem | null>(null);

  const update = async (id: string, body: object) => {
    const { report } = await apiFetch<{ report: SavedReportItem }>(`/api/saved-reports/${id}`, { method: "PATCH", body });
    setItems((cur) => cur.map((x) => (x.id === id ? { ...x, ...report, canEdit: x.canEdit, canBuild: x.canBuild } : x)));
  };
  const patch = async (id: string, body: object) => {
    setError(null);
    try {
      await update(id, body);
    } catch (e) {
      setError(e instanceof Error ? e.message : "Could not update the report");
    }
  };
  const duplicate = async (r: SavedReportItem) => {
    setError(null);
    try {
      const { report } = await apiFetch<{ report: SavedReportItem }>("/api/saved-reports", { method: "POST", body: { name: `Copy of ${r.name}`.slice(0, 200), page: r.page, params: r.params } });
      setItems((cur) => [{ ...report, canEdit: true, canBuild: true }, ...cur]);
    } catch (e) {
      setError(e instanceof Error ? e.message : "Could not duplicate it");
    }
  };
  const remove = async (id: string) => {
    setError(null);
    try {
      await apiFetch(`/api/saved-reports/${id}`, { method: "DELETE" });
      setItems((cur) => cur.filter((x) => x.id !== id));
    } catch (e) {
      setError(e instanceof Error ? e.message : "Could not delete the report");
    }
  };

  if (items.length === 0) return <p className="text-sm text-slate-700">{empty ?? "No saved reports yet. Build one in Explore or Cohorts and press “Save”."}</p>;
  return (
    <div className="space-y-3">
      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <ul className="space-y-3" aria-label="Saved reports">
        {items.map((r) => (
          <li key={r.id} className="rounded border border-slate-200 bg-white p-3">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <div>
                <a className="font-medium text-blue-800 underline" href={hrefOf(r)}>
                  {r.name}
                </a>
                <p className="text-xs text-slate-700">
                  {PAGE_NAMES[r.page]} · by {r.ownerEmail} · updated {r.updatedAt.slice(0, 10)}
                  {r.sharedWithTeam ? " · shared with the team" : ""}
                </p>
              </div>
              {r.canBuild && r.page !== "monitor" ? (
                <Button size="sm" aria-label={`Duplicate ${r.name}`} onClick={() => void duplicate(r)}>
                  Duplicate
                </Button>
              ) : null}
              {r.canEdit ? (
                <div className="flex flex-wrap gap-2">
                  <Button size="sm" aria-label={`Rename ${r.name}`} onClick={() => setRenaming(r)}>
                    Rename
                  </Button>
                  <Button size="sm" onClick={() => void patch(r.id, { shared_with_team: !r.sharedWithTeam })}>
                    {r.sharedWithTeam ? "Stop sharing with team" : "Share with team"}
                  </Button>
                  <Button size="sm" aria-expanded={sharing === r.id} onClick={() => setSharing(sharing === r.id ? null : r.id)}>
                    Share links
                  </Button>
                  <Button
                    size="sm"
                    variant="danger"
                    onClick={() => {
                      if (window.confirm(`Delete “${r.name}” and its share links?`)) void remove(r.id);
                    }}
                  >
                    Delete
                  </Button>
                </div>
              ) : null}
            </div>
            {sharing === r.id ? <ShareLinks reportId={r.id} page={r.page} /> : null}
          </li>
        ))}
      </ul>
      <NameDialog
        open={renaming !== null}
        title={renaming ? `Rename “${renaming.name}”` : "Rename"}
        page={renaming?.page ?? "explore"}
        initial={renaming?.name ?? ""}
        {...(renaming ? { exceptId: renaming.id } : {})}
        submitLabel="Rename"
        onCancel={() => setRenaming(null)}
        onSave={async (name) => {
          if (renaming) await update(renaming.id, { name });
          setRenaming(null);
        }}
      />
    </div>
  );
}
