"use client";
/**
 * A dashboard on screen: its settings (date range, grain, comparison, filters) for every tile, the
 * tiles as they arrive, how they were fetched, and (for analysts) editing, saving and sharing. The
 * URL holds the whole dashboard; the server plans the tiles' queries and answers each look with what
 * it has, so the page simply asks again until every tile is drawn.
 */
import { useRouter } from "next/navigation";
import { useCallback, useId, useState } from "react";
import { COHORT_PRESETS } from "@/lib/report/state/range";
import type { TileKind } from "@/lib/report/state/dashboard";
import { formatInstant } from "@/lib/report/metrics/format";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import { Dialog } from "@/components/ui/dialog";
import { DateRangePicker } from "@/components/ui/date-range-picker";
import { PeriodControls } from "@/components/explore/period-controls";
import { FilterEditor } from "@/components/report/filter-editor";
import { UrlProblems } from "@/components/report/lazy-url-problems";
import { NameDialog } from "@/components/saved-reports/name-dialog";
import type { ShareLinksSlot } from "@/components/saved-reports/saved-report-list";
import { PdfDownloadLink } from "@/components/report/pdf-link";
import type { ColumnOptions } from "@/components/explore/columns-picker";
import { DashboardGrid, FetchPanel, TileDownload, TileEditor, WorkbookDownload } from "./lazy-parts";
import { tileControls } from "./tile-controls";
import { useArranging } from "./use-arranging";
import { useDashboardLook, type DashboardLooks, type FirstLook } from "./use-dashboard-look";
import { useDashboardSaving } from "./use-dashboard-saving";
import { useSettingsDraft } from "./use-settings-draft";
import { useTileEditing } from "./use-tile-editing";

export interface SavedDashboard {
  id: string;
  name: string;
  params: string;
  canEdit: boolean;
}

export function DashboardPage({
  timeZone,
  today,
  saved,
  canBuild,
  first = null,
  looks,
  columns,
  shareLinks: ShareLinks,
}: {
  timeZone: string;
  today: string;
  saved: SavedDashboard | null;
  canBuild: boolean;
  first?: FirstLook | null;
  looks: DashboardLooks;
  /** Explore's metric options for the tile editor's pickers (for those who edit tiles). */
  columns?: ColumnOptions;
  /** The share links panel (sharing's), for a saved dashboard its user may edit. */
  shareLinks?: ShareLinksSlot;
}) {
  const id = useId();
  const router = useRouter();
  const navigate = useCallback((href: string) => router.push(href), [router]);
  const { look, write, lib, withLib, answer } = useDashboardLook({ looks, today, saved, first, canBuild });
  const { problems, state, params, settingsKey: stateKey } = look;
  const { change, announce } = useArranging(write, params, answer.data);
  const { editing, setEditing, editingTile, setEditingTile, onPending, editorRound, leaving, leaveTileEditor, keepEditing, discardPending, applyPending } = useTileEditing({
    state,
    lib,
    write,
    navigate,
  });
  const { message, dirty, save, naming, setNaming, saveAs } = useDashboardSaving(saved, params, navigate, () => router.refresh());
  const { draft, grainNote, edit } = useSettingsDraft(state, stateKey, today, lib, withLib);
  const [addKind, setAddKind] = useState<TileKind>("kpi");
  const [sharing, setSharing] = useState(false);

  const pinning = state.tiles.filter((t) => Object.values(t.pins).some(Boolean)).length;
  const alwaysComparing = state.tiles.filter((t) => t.kind === "kpi" && !t.pins.compare).length;
  // Editing starts once the state code has come (the "Edit tiles" button waits for it).
  const editLib = editing ? lib : null;
  const controls = tileControls({ state, lib: editLib, editingTile, setEditingTile, leaveTileEditor, change });

  // A table, pivot or retention tile downloads what it shows as CSV or a workbook.
  const tileFooter = (i: number) => {
    const t = answer.data?.tiles[i];
    const body = t?.outcome.status === "done" ? t.outcome.model.body : null;
    if (!t || !body || (body.kind !== "table" && body.kind !== "pivot" && body.kind !== "cohort")) return null;
    return <TileDownload tile={t} context={{ dashboard: saved?.name ?? "Dashboard", timeZone }} filters={state.filters} />;
  };

  return (
    <div className="flex flex-col gap-4">
      <form
        aria-label="Dashboard settings"
        className="flex flex-col gap-3 rounded-md border border-slate-200 bg-white p-3"
        onSubmit={(e) => {
          e.preventDefault();
          withLib((l) => leaveTileEditor("the settings apply to every tile", (base) => change(l, l.applyToEveryTile(base, draft))));
        }}
      >
        <div className="grid gap-4 lg:grid-cols-3">
          <DateRangePicker value={draft.range} onChange={(range) => edit({ range })} presets={COHORT_PRESETS} today={today} timeZone={timeZone} />
          <PeriodControls draft={{ ...draft, groupBy: ["date"] }} today={today} rangeOk monthsBesideMonths onChange={(p) => edit(p)} />
          <FilterEditor op="orders" value={draft.filters} onChange={(filters) => edit({ filters })} />
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" variant="primary">
            Apply to every tile
          </Button>
          <span className="text-xs text-slate-700">
            {pinning > 0 || alwaysComparing > 0
              ? "Every tile takes these settings except what a badge on it says it keeps."
              : "Every tile takes these settings."}
          </span>
          {draft.compare.kind === "none" && alwaysComparing > 0 ? (
            <span className="text-xs font-medium text-slate-900" data-testid="kpi-compares">
              With no comparison, KPI tiles still compare with the previous period: a KPI always compares.
            </span>
          ) : null}
          {grainNote ? (
            <span role="note" data-testid="grain-fallback" className="text-xs font-medium text-slate-900">
              {grainNote}
            </span>
          ) : null}
        </div>
      </form>

      <div className="flex flex-wrap items-center gap-2">
        {canBuild ? (
          <Button
            aria-pressed={editing}
            onClick={() =>
              editing
                ? leaveTileEditor("editing ends", (base, applied, l) => {
                    if (applied && l && editingTile !== null) change(l, base, `Tile ${editingTile + 1} updated.`);
                    setEditingTile(null);
                    setEditing(false);
                  })
                : withLib(() => setEditing(true))
            }
          >
            {editing ? "Done editing" : "Edit tiles"}
          </Button>
        ) : null}
        {saved?.canEdit ? (
          <Button variant="primary" disabled={!dirty} onClick={() => void save()}>
            Save
          </Button>
        ) : null}
        {canBuild ? (
          <Button
            onClick={() =>
              // What is saved is the dashboard the URL holds, and saving opens it on its own page.
              leaveTileEditor(saved ? "the dashboard is duplicated" : "the dashboard is saved", (base, applied, l) => {
                if (applied && l && editingTile !== null) change(l, base, `Tile ${editingTile + 1} updated.`);
                setNaming(true);
              })
            }
          >
            {saved ? "Duplicate…" : "Save dashboard…"}
          </Button>
        ) : null}
        <NameDialog
          open={naming}
          title={saved ? `Duplicate “${saved.name}”` : "Save this dashboard"}
          page="dashboard"
          initial={saved ? `Copy of ${saved.name}` : ""}
          onCancel={() => setNaming(false)}
          onSave={saveAs}
        />
        {saved?.canEdit && ShareLinks ? (
          <Button aria-expanded={sharing} onClick={() => setSharing(!sharing)}>
            Share links
          </Button>
        ) : null}
        {saved ? <PdfDownloadLink href={`/api/saved-reports/${encodeURIComponent(saved.id)}/pdf`} title="The dashboard as saved, as a PDF" /> : null}
        {dirty ? <span className="text-sm text-slate-700">Changed since it was saved.</span> : null}
        {message ? (
          <span role={message.ok ? "status" : "alert"} className={`text-sm ${message.ok ? "text-slate-700" : "text-red-800"}`}>
            {message.text}
          </span>
        ) : null}
      </div>
      {sharing && saved && ShareLinks ? <ShareLinks reportId={saved.id} page="dashboard" /> : null}
      <p ref={announce} role="status" aria-live="polite" className="sr-only" />

      {problems.length > 0 ? <UrlProblems problems={problems} onOpenNearest={() => withLib((l) => write(l.serializeDashboard(state), "replace"))} /> : null}

      {editLib ? (
        <div className="flex flex-wrap items-end gap-2 rounded-md border border-slate-200 bg-white p-3">
          <label htmlFor={`${id}-add`} className="text-sm font-medium text-slate-900">
            New tile
          </label>
          <Select id={`${id}-add`} className="w-auto" value={addKind} onChange={(e) => setAddKind(e.target.value as TileKind)} options={editLib.TILE_KINDS.map((k) => ({ value: k, label: editLib.TILE_KIND_LABELS[k] }))} />
          <Button
            onClick={() =>
              leaveTileEditor("a new tile's editor opens", (base) => {
                change(editLib, editLib.addTile(base, editLib.newTile(addKind)), `${editLib.TILE_KIND_LABELS[addKind]} added as tile ${base.tiles.length + 1}.`);
                setEditingTile(base.tiles.length);
              })
            }
          >
            Add tile
          </Button>
        </div>
      ) : null}
      {editLib && editingTile !== null && state.tiles[editingTile] ? (
        <TileEditor
          key={`${editingTile}:${editorRound}:${editLib.serializeDashboard({ ...state, tiles: [state.tiles[editingTile]] })}`}
          tile={state.tiles[editingTile]}
          index={editingTile}
          onApply={(t) => {
            change(editLib, editLib.updateTile(state, editingTile, t), `Tile ${editingTile + 1} updated.`);
            setEditingTile(null);
          }}
          onCancel={() => setEditingTile(null)}
          onPending={onPending}
          columns={columns}
        />
      ) : null}
      <Dialog
        open={leaving !== null}
        title={leaving ? `Tile ${leaving.tile + 1} has settings not applied` : ""}
        description={leaving ? `Its editor holds changes that are not on the dashboard yet. Apply them before ${leaving.doing}, or discard them?` : undefined}
        onClose={keepEditing}
      >
        <div className="flex flex-wrap justify-end gap-2 pt-1">
          <Button data-autofocus onClick={keepEditing}>
            Keep editing
          </Button>
          <Button variant="danger" onClick={discardPending}>
            Discard them
          </Button>
          <Button variant="primary" onClick={applyPending}>
            Apply them
          </Button>
        </div>
      </Dialog>

      {answer.error ? (
        <p role="alert" className="text-sm text-red-800">
          {answer.error.message}
        </p>
      ) : null}
      {state.tiles.length === 0 ? <p className="text-sm text-slate-700">This dashboard has no tiles yet. Press “Edit tiles” to add one.</p> : null}
      {answer.data ? (
        <>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-slate-700" data-testid="dashboard-as-of">
              {answer.data.asOf ? `Data as of ${formatInstant(answer.data.asOf, timeZone)}.` : "Fetching…"}
            </p>
            <WorkbookDownload answer={answer.data} state={state} name={saved?.name ?? "Dashboard"} timeZone={timeZone} />
          </div>
          <DashboardGrid answer={answer.data} widths={state.tiles.map((t) => t.width)} timeZone={timeZone} controls={controls} footer={tileFooter} />
          {canBuild ? <FetchPanel answer={answer.data} timeZone={timeZone} /> : null}
        </>
      ) : params ? (
        <p role="status" className="text-sm text-slate-700">
          Planning the tiles&apos; queries…
        </p>
      ) : null}
    </div>
  );
}
