"use client";
/**
 * A dashboard on screen: its settings (date range, grain, comparison, filters) for every tile, the
 * tiles as they arrive, how they were fetched, and (for analysts) editing, saving and sharing. The
 * URL holds the whole dashboard; the server plans the tiles' queries and answers each look with what
 * it has, so the page simply asks again until every tile is drawn.
 */
import { useRouter } from "next/navigation";
import { lazy, Suspense, useCallback, useEffect, useId, useRef, useState, type ComponentProps } from "react";
import { useQuery } from "@tanstack/react-query";
import { getQueryClient } from "@/lib/core/api-client/query-client";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { dashboardQuery } from "@/lib/features/dashboards/look-query";
import { COHORT_PRESETS, isValidCustomRange, resolveRange } from "@/lib/report/state/range";
import type { DashboardLook, DashboardSettings, DashboardState, Tile, TileKind } from "@/lib/report/state/dashboard";
import type { DashboardAnswer } from "@/lib/features/dashboards/run";
import { formatInstant } from "@/lib/report/metrics/format";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import { Dialog } from "@/components/ui/dialog";
import { fitGrain } from "@/lib/report/state/grain-fit";
import { DateRangePicker } from "@/components/ui/date-range-picker";
import { PeriodControls } from "@/components/explore/period-controls";
import { FilterEditor } from "@/components/report/filter-editor";
import { UrlProblems } from "@/components/report/lazy-url-problems";
import { useLazyUrlLook, type UrlLooks } from "@/components/report/use-url-look";
import { LazyShareLinks } from "@/components/saved-reports/lazy-share-links";
import { NameDialog } from "@/components/saved-reports/name-dialog";
import { PdfDownloadLink } from "@/components/report/pdf-link";
import { preloadTileChart } from "./lazy-tile-chart";
import type { ApplyPending } from "./tile-editor";
import type { ColumnOptions } from "@/components/explore/columns-picker";

// The tiles' bodies and the fetch panel, display only (the arranging buttons appear in edit mode),
// come with the first answer: asked for as soon as there are settings, while that answer is on its
// way. A dashboard the server drew shows them from its HTML and hydrates them when their code has
// come, after the page's (React's lazy: next/dynamic would preload them with the page).
const DashboardGrid = lazy(() => import("./dashboard-grid").then((m) => ({ default: m.DashboardGrid })));
const FetchPanel = lazy(() => import("./fetch-panel").then((m) => ({ default: m.FetchPanel })));
// A table, pivot or retention tile's CSV download (with the CSV writers) comes once tiles are drawn.
const TileDownload = lazy(() => import("./tile-download").then((m) => ({ default: m.DashboardTileDownload })));
const WorkbookDownload = lazy(() => import("./tile-download").then((m) => ({ default: m.DashboardWorkbookDownload })));
const loadingTiles = (
  <p role="status" className="min-h-24 text-sm text-slate-700">
    Loading the tiles…
  </p>
);

// A tile's editor is loaded when a tile is first edited (React's lazy too: the server never draws it).
const LazyTileEditor = lazy(() => import("./tile-editor").then((m) => ({ default: m.TileEditor })));
function TileEditor(props: ComponentProps<typeof LazyTileEditor>) {
  return (
    <Suspense fallback={<div className="min-h-64 rounded-md border border-blue-300 bg-blue-50 p-3 text-sm text-slate-700">Loading the tile editor…</div>}>
      <LazyTileEditor {...props} />
    </Suspense>
  );
}

// The dashboard's state code (its URL's parser and writer, the tiles' arranging, and through them the
// metrics' catalog, the KPI registry and both report pages' URL state) is not in the page's first
// load: the server hands the page its URL's look, parsed by that same code, and the page
// loads the code when it first needs it: to edit, to apply settings, or for a URL the server did not
// look at (one written by this page, or read back by back and forward).
type StateLib = typeof import("@/lib/report/state/dashboard");
let stateLib: Promise<StateLib> | null = null;
const loadStateLib = () => (stateLib ??= import("@/lib/report/state/dashboard"));

/** The server's look at the URL the page opens with (lib/report/state/dashboard.ts, dashboardLook). */
export type DashboardLooks = UrlLooks<DashboardLook>;

export interface SavedDashboard {
  id: string;
  name: string;
  params: string;
  canEdit: boolean;
}

/**
 * What closing the tile editor does: `base` is the dashboard with the editor's settings applied
 * (`applied`) or as it is (nothing pending, or discarded); `l` the state code, there once editing.
 */
type AfterLeaving = (base: DashboardState, applied: boolean, l: StateLib | null) => void;
/** A question put before the tile editor closes on settings not applied: which tile, what closes it, and what follows. */
interface Leaving {
  tile: number;
  doing: string;
  then: AfterLeaving;
}

function useDashboardAnswer(params: string | null, savedId: string | null, first: FirstLook | null) {
  // The server's look at these very settings, drawn into the page's HTML, is where the entry starts.
  return useQuery(dashboardQuery(params, savedId, first !== null && first.params === params ? first.answer : undefined), getQueryClient());
}

/** The server's first look at the dashboard the page opens with (lib/features/dashboards/service.ts). */
export interface FirstLook {
  params: string;
  answer: DashboardAnswer;
}

export function DashboardPage({
  timeZone,
  today,
  saved,
  canBuild,
  first = null,
  looks,
  columns,
}: {
  timeZone: string;
  today: string;
  saved: SavedDashboard | null;
  canBuild: boolean;
  first?: FirstLook | null;
  looks: DashboardLooks;
  /** Explore's metric options for the tile editor's pickers (for those who edit tiles). */
  columns?: ColumnOptions;
}) {
  const id = useId();
  const router = useRouter();
  const savedParams = saved?.params ?? null;
  const lookAt = useCallback((l: StateLib, search: string) => l.dashboardLook(search, today, savedParams), [today, savedParams]);
  const { look, write, code: lib, withCode: withLib } = useLazyUrlLook(looks, loadStateLib, lookAt);
  // A URL naming no dashboard was redirected by the server to the saved (or starter) one's
  // (lib/report/state/dashboard.ts, starterQuery), so the page never writes its URL on its own.
  const { problems, state, params, settingsKey: stateKey } = look;

  const answer = useDashboardAnswer(params, saved?.id ?? null, first);
  const asked = params !== null;
  useEffect(() => {
    if (!asked) return;
    void import("./dashboard-grid");
    if (canBuild) void import("./fetch-panel");
  }, [asked, canBuild]);
  // A chart tile's code is fetched beside its answer, not after it.
  const hasChart = state.tiles.some((t) => t.kind === "chart");
  useEffect(() => {
    if (hasChart) preloadTileChart();
  }, [hasChart]);

  const [editing, setEditing] = useState(false);
  const [editingTile, setEditingTile] = useState<number | null>(null);
  // The open tile editor's settings not yet applied, and what was about to close it meanwhile.
  const pendingTile = useRef<ApplyPending | null>(null);
  const onPending = useCallback((apply: ApplyPending | null) => {
    pendingTile.current = apply;
  }, []);
  const [leaving, setLeaving] = useState<Leaving | null>(null);
  // Discarded settings leave the editor: it opens again on what its tile holds.
  const [editorRound, setEditorRound] = useState(0);
  /**
   * Does `then` (which closes the editor, or changes the dashboard under it), asking first when the
   * open editor holds settings not applied: `then` gets the dashboard with them applied, or as it
   * is when they are discarded, so the change never drops them unasked.
   */
  const leaveTileEditor = (doing: string, then: AfterLeaving) => {
    if (pendingTile.current && editingTile !== null) setLeaving({ tile: editingTile, doing, then });
    else then(state, false, lib);
  };
  // Leaving the page by a link asks too; a reload, a typed address or closing the tab gets the
  // browser's own question.
  useEffect(() => {
    if (editingTile === null) return;
    const onClick = (e: MouseEvent) => {
      if (!pendingTile.current || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!(a instanceof HTMLAnchorElement) || (a.target !== "" && a.target !== "_self") || a.hasAttribute("download")) return;
      const to = new URL(a.href, window.location.href);
      if (to.origin === window.location.origin && to.pathname === window.location.pathname && to.search === window.location.search) return;
      // Before the link's own handler (the router's) sees the click.
      e.preventDefault();
      e.stopPropagation();
      setLeaving({
        tile: editingTile,
        doing: "this page is left",
        then: (base, applied, l) => {
          if (applied && l) write(l.serializeDashboard(base), "push");
          if (to.origin === window.location.origin) router.push(`${to.pathname}${to.search}${to.hash}`);
          else window.location.assign(to.href);
        },
      });
    };
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (pendingTile.current) e.preventDefault();
    };
    window.addEventListener("click", onClick, true);
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => {
      window.removeEventListener("click", onClick, true);
      window.removeEventListener("beforeunload", onBeforeUnload);
    };
  }, [editingTile, router, write]);
  const [addKind, setAddKind] = useState<TileKind>("kpi");
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [sharing, setSharing] = useState(false);
  const announce = useRef<HTMLParagraphElement>(null);

  // After arranging, focus goes to the same control on the tile's new place (or its Edit button).
  const focusTarget = useRef<{ label: string; fallback: string } | null>(null);
  const change = (l: StateLib, next: DashboardState, note?: string, focus?: { label: string; fallback: string }) => {
    write(l.serializeDashboard(next), "push");
    if (note && announce.current) announce.current.textContent = note;
    focusTarget.current = focus ?? null;
  };
  useEffect(() => {
    const target = focusTarget.current;
    if (!target) return;
    const find = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]:not([disabled])`);
    const el = find(target.label) ?? find(target.fallback);
    if (el) {
      el.focus();
      focusTarget.current = null;
    }
  }, [params, answer.data]);

  const pinning = state.tiles.filter((t) => Object.values(t.pins).some(Boolean)).length;
  const alwaysComparing = state.tiles.filter((t) => t.kind === "kpi" && !t.pins.compare).length;
  const dirty = saved !== null && params !== null && params !== saved.params;
  const save = async () => {
    if (!saved || !params) return;
    try {
      await apiFetch(`/api/saved-reports/${saved.id}`, { method: "PATCH", body: { params } });
      setMessage({ ok: true, text: "Saved." });
      router.refresh();
    } catch (e) {
      setMessage({ ok: false, text: e instanceof Error ? e.message : "Could not save the dashboard" });
    }
  };
  // Named in a dialog, which shows a failure itself (this throws) and warns of a name already used.
  const [naming, setNaming] = useState(false);
  const saveAs = async (name: string) => {
    if (!params) return;
    const { report } = await apiFetch<{ report: { id: string } }>("/api/saved-reports", { method: "POST", body: { name, page: "dashboard", params } });
    setNaming(false);
    router.push(`/dashboards/${report.id}?${params}`);
  };

  const [draft, setDraft] = useState<DashboardSettings>(state);
  const [draftKey, setDraftKey] = useState(stateKey);
  // Date rows of a range shorter than one period of the grain are read finer (lib/report/state/grain-fit.ts).
  const grainNote = "preset" in draft.range || isValidCustomRange(draft.range.start, draft.range.end) ? fitGrain(resolveRange(draft.range, today), draft.grain).note : null;
  if (draftKey !== stateKey) {
    // The URL moved (back, forward, a link): the form shows what is on screen.
    setDraftKey(stateKey);
    setDraft(state);
  }
  // An edit of the settings asks for the state code, so "Apply to every tile" finds it there.
  const edit = (p: Partial<typeof draft>) => {
    if (lib === null) withLib(() => undefined);
    setDraft({ ...draft, ...p });
  };

  // Editing starts once the state code has come (the "Edit tiles" button waits for it).
  const editLib = editing ? lib : null;
  /**
   * A change to the tiles while editing, made on the dashboard with the open editor's pending
   * settings applied (or discarded) as answered; the editor stays on its tile (`follow` says where
   * that tile went; null when it is gone).
   */
  const arrange = (l: StateLib, doing: string, make: (base: DashboardState) => DashboardState, note: string, focus?: { label: string; fallback: string }, follow: (at: number) => number | null = (at) => at) =>
    leaveTileEditor(doing, (base) => {
      change(l, make(base), note, focus);
      setEditingTile((at) => (at === null ? null : follow(at)));
    });
  const tileControls = (i: number) => {
    // While the next answer loads the previous one stays on screen, and may have more tiles than the URL now holds.
    const t = state.tiles[i];
    const l = editLib;
    if (!l || !t) return null;
    const n = state.tiles.length;
    // Tiles i and j trade places: the editor follows its tile.
    const swap = (j: number) => (at: number) => (at === i ? j : at === j ? i : at);
    const widen = (by: 1 | -1) => (base: DashboardState) => l.updateTile(base, i, { width: ((base.tiles[i]?.width ?? t.width) + by) as Tile["width"] });
    return (
      <div className="flex flex-wrap gap-1" role="group" aria-label={`Arrange tile ${i + 1}`}>
        <Button size="sm" aria-label={`Move tile ${i + 1} earlier`} disabled={i === 0} onClick={() => arrange(l, `tile ${i + 1} moves`, (base) => l.moveTile(base, i, i - 1), `Tile moved to place ${i}.`, { label: `Move tile ${i} earlier`, fallback: `Edit tile ${i}` }, swap(i - 1))}>
          ←
        </Button>
        <Button size="sm" aria-label={`Move tile ${i + 1} later`} disabled={i === n - 1} onClick={() => arrange(l, `tile ${i + 1} moves`, (base) => l.moveTile(base, i, i + 1), `Tile moved to place ${i + 2}.`, { label: `Move tile ${i + 2} later`, fallback: `Edit tile ${i + 2}` }, swap(i + 1))}>
          →
        </Button>
        <Button size="sm" aria-label={`Make tile ${i + 1} narrower`} disabled={t.width === l.TILE_WIDTHS[0]} onClick={() => arrange(l, `tile ${i + 1} gets narrower`, widen(-1), `Tile ${i + 1} is ${t.width - 1} columns wide.`, { label: `Make tile ${i + 1} narrower`, fallback: `Make tile ${i + 1} wider` })}>
          −
        </Button>
        <Button size="sm" aria-label={`Make tile ${i + 1} wider`} disabled={t.width === 4} onClick={() => arrange(l, `tile ${i + 1} gets wider`, widen(1), `Tile ${i + 1} is ${t.width + 1} columns wide.`, { label: `Make tile ${i + 1} wider`, fallback: `Make tile ${i + 1} narrower` })}>
          +
        </Button>
        <Button
          size="sm"
          aria-label={`Edit tile ${i + 1}`}
          aria-expanded={editingTile === i}
          onClick={() =>
            leaveTileEditor(editingTile === i ? `its editor closes` : `tile ${i + 1}'s editor opens`, (base, applied) => {
              if (applied) change(l, base, `Tile ${(editingTile ?? i) + 1} updated.`);
              setEditingTile(editingTile === i ? null : i);
            })
          }
        >
          Edit
        </Button>
        <Button
          size="sm"
          variant="danger"
          aria-label={`Remove tile ${i + 1}`}
          onClick={() => {
            const remove = (base: DashboardState) => {
              change(l, l.removeTile(base, i), `Tile ${i + 1} removed.`, { label: `Remove tile ${Math.min(i + 1, n - 1)}`, fallback: "Edit tiles" });
              setEditingTile((at) => (at === null || at === i ? null : at > i ? at - 1 : at));
            };
            // The tile being edited goes with its editor's settings: only another tile's are asked about.
            if (editingTile === i) remove(state);
            else leaveTileEditor(`tile ${i + 1} is removed`, remove);
          }}
        >
          Remove
        </Button>
      </div>
    );
  };

  // A table, pivot or retention tile downloads what it shows as CSV or a workbook.
  const tileFooter = (i: number) => {
    const t = answer.data?.tiles[i];
    const body = t?.outcome.status === "done" ? t.outcome.model.body : null;
    if (!t || !body || (body.kind !== "table" && body.kind !== "pivot" && body.kind !== "cohort")) return null;
    return (
      <Suspense fallback={null}>
        <TileDownload tile={t} context={{ dashboard: saved?.name ?? "Dashboard", timeZone }} filters={state.filters} />
      </Suspense>
    );
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
        {saved?.canEdit ? (
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
      {sharing && saved ? <LazyShareLinks reportId={saved.id} page="dashboard" /> : null}
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
        onClose={() => setLeaving(null)}
      >
        <div className="flex flex-wrap justify-end gap-2 pt-1">
          <Button data-autofocus onClick={() => setLeaving(null)}>
            Keep editing
          </Button>
          <Button
            variant="danger"
            onClick={() => {
              const next = leaving;
              setLeaving(null);
              pendingTile.current = null;
              setEditorRound((r) => r + 1);
              next?.then(state, false, lib);
            }}
          >
            Discard them
          </Button>
          <Button
            variant="primary"
            onClick={() => {
              const next = leaving;
              setLeaving(null);
              // Settings that do not parse stay in the editor with their problems named.
              const tile = pendingTile.current?.() ?? null;
              if (!next || !tile || !lib) return;
              next.then(lib.updateTile(state, next.tile, tile), true, lib);
            }}
          >
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
            <Suspense fallback={null}>
              <WorkbookDownload answer={answer.data} state={state} name={saved?.name ?? "Dashboard"} timeZone={timeZone} />
            </Suspense>
          </div>
          <Suspense fallback={loadingTiles}>
            <DashboardGrid answer={answer.data} widths={state.tiles.map((t) => t.width)} timeZone={timeZone} controls={tileControls} footer={tileFooter} />
          </Suspense>
          {canBuild ? (
            <Suspense fallback={null}>
              <FetchPanel answer={answer.data} timeZone={timeZone} />
            </Suspense>
          ) : null}
        </>
      ) : params ? (
        <p role="status" className="text-sm text-slate-700">
          Planning the tiles&apos; queries…
        </p>
      ) : null}
    </div>
  );
}
