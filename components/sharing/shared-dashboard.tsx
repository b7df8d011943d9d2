import type { SharedDashboard } from "@/lib/sharing/dashboard";
import { formatInstant } from "@/lib/metrics/format";
import { tileCsvSource } from "@/lib/dashboards/tile-csv";
import { DashboardGrid } from "@/components/dashboards/dashboard-grid";
import { TileDownload } from "@/components/dashboards/tile-download";
import { PAGE_WIDTH } from "@/components/ui/page";
import { PendingRefresh } from "./lazy";
import { PresetChips } from "./preset-chips";
import { PrintPageButton, SharedGridDownloads } from "./shared-grid-downloads";

/**
 * A shared dashboard, read-only: every tile drawn at once from the answers the dashboard has, each
 * with its age; while newer answers (or a first one) are fetched, the page says so and refreshes itself.
 * Each table, pivot and retention tile downloads as CSV, with what the link shows above it; the whole
 * dashboard prints as shown (charts and KPIs included, which no CSV could carry), buttons left out.
 */
export function SharedDashboardView({ view, base }: { view: SharedDashboard; base: string }) {
  const a = view.answer;
  const waiting = a.tiles.some((t) => t.outcome.status === "pending" || (t.outcome.status === "done" && t.outcome.stale));
  const queued = a.plan.filter((s) => s.status.state === "queued" || s.status.state === "fetching").length;
  const download = (i: number) => {
    const t = a.tiles[i];
    const source = t
      ? tileCsvSource(t, { dashboard: view.title, rangeLabel: view.rangeLabel, timeZone: view.timeZone, filters: view.filters, snapshot: view.mode === "snapshot", sharedBy: view.sharedBy })
      : null;
    if (!source) return null;
    return source.body.kind === "cohort" ? (
      <SharedGridDownloads grid={source.body.grid} meta={source.meta} fileName={source.fileName} />
    ) : (
      <TileDownload source={source} />
    );
  };
  return (
    <main className={`${PAGE_WIDTH} space-y-4 py-4 sm:py-6`}>
      <header>
        <h1 className="text-xl font-semibold sm:text-2xl">{view.title}</h1>
        <p className="mt-1 text-base text-slate-800" data-testid="share-subtitle">
          {view.rangeLabel} ({view.timeZone}) · Filters: {view.filters}
        </p>
        <p className="mt-1 text-sm text-slate-700">
          Shared by {view.sharedBy}.{" "}
          {a.asOf ? `Data as of ${formatInstant(a.asOf, view.timeZone)}${view.mode === "snapshot" ? " (snapshot)" : ""}.` : null}
        </p>
        <div className="print:hidden">
          <PresetChips base={base} preset={view.preset} allowed={view.allowedPresets} />
        </div>
        <div className="mt-2">
          <PrintPageButton label="Print dashboard" />
        </div>
      </header>
      {waiting && view.mode === "live" ? (
        <div className="rounded border border-slate-200 bg-slate-50 p-3 text-sm text-slate-800 print:hidden">
          <PendingRefresh seconds={Math.min(30, Math.max(3, queued * 6))} />
        </div>
      ) : null}
      <div className="print:[&_article]:break-inside-avoid">
        <DashboardGrid answer={a} widths={view.widths} timeZone={view.timeZone} idPrefix="shared-tile" footer={download} />
      </div>
    </main>
  );
}
