import type { SharedDashboard } from "@/lib/features/sharing/dashboard";
import { formatInstant, formatWait } from "@/lib/report/metrics/format";
import { dashboardWait, replannedWords } from "@/lib/features/dashboards/wait";
import { tileCsvSource } from "@/lib/features/dashboards/tile-csv";
import { DashboardGrid } from "@/components/dashboards/dashboard-grid";
import { DashboardWorkbookButton, TileDownload } from "@/components/dashboards/tile-download";
import { PAGE_WIDTH } from "@/components/ui/page";
import { PendingRefresh } from "./lazy";
import { PresetChips } from "./preset-chips";
import { PdfDownloadLink } from "@/components/report/pdf-link";
import { PrintPageButton, SharedGridDownloads } from "./shared-grid-downloads";

/**
 * A shared dashboard, read-only: every tile drawn at once from the answers the dashboard has, each
 * with its age; while newer answers (or a first one) are fetched, the page says so and refreshes itself.
 * Each table, pivot and retention tile downloads as CSV or a workbook, with what the link shows above
 * it; the whole dashboard downloads as one workbook (a sheet per such tile) and prints as shown
 * (charts and KPIs included, which no CSV could carry), buttons left out.
 */
export function SharedDashboardView({ view, base, pdfHref }: { view: SharedDashboard; base: string; pdfHref?: string }) {
  const a = view.answer;
  const waiting = a.tiles.some((t) => t.outcome.status === "pending" || (t.outcome.status === "done" && t.outcome.stale));
  const checkedAt = new Date();
  const wait = dashboardWait(a);
  const sourceOf = (t: (typeof a.tiles)[number] | undefined) =>
    t ? tileCsvSource(t, { dashboard: view.title, rangeLabel: view.rangeLabel, timeZone: view.timeZone, filters: view.filters, snapshot: view.mode === "snapshot", sharedBy: view.sharedBy }) : null;
  const download = (i: number) => {
    const source = sourceOf(a.tiles[i]);
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
        <div className="mt-2 flex flex-wrap gap-2">
          <PrintPageButton label="Print dashboard" />
          {pdfHref ? <PdfDownloadLink href={pdfHref} /> : null}
          <DashboardWorkbookButton sources={a.tiles.flatMap((t) => sourceOf(t) ?? [])} question={view.question} fileName={`${fileStem(view.title)}_${a.today}`} />
        </div>
      </header>
      {waiting && view.mode === "live" ? (
        <div className="rounded border border-slate-200 bg-slate-50 p-3 text-sm text-slate-800 print:hidden">
          <PendingRefresh seconds={lookAgainIn(wait.nextStart, checkedAt.getTime())} checkedAt={checkedAt.toISOString()}>
            <WaitWords wait={wait} at={checkedAt.getTime()} timeZone={view.timeZone} />
          </PendingRefresh>
        </div>
      ) : null}
      <div className="print:[&_article]:break-inside-avoid">
        <DashboardGrid answer={a} widths={view.widths} timeZone={view.timeZone} idPrefix="shared-tile" footer={download} />
      </div>
    </main>
  );
}

/**
 * Seconds until the page looks again: when the next queued query should start, between 2 and 10 s
 * (each look is also held on the server for a few seconds while an answer is due).
 */
function lookAgainIn(nextStart: string | null, at: number): number {
  const until = nextStart === null ? 3_000 : Date.parse(nextStart) - at;
  return Math.min(10, Math.max(2, Math.ceil(until / 1000)));
}

/** Where the dashboard's fetching stands: calls to go before its last, and when it should be ready. */
function WaitWords({ wait, at, timeZone }: { wait: ReturnType<typeof dashboardWait>; at: number; timeZone: string }) {
  const replanned = replannedWords(wait.replanned);
  const ready = wait.readyAt ? ` It should be ready ${formatWait(Date.parse(wait.readyAt) - at)} (its last call answered at about ${formatInstant(wait.readyAt, timeZone)}).` : "";
  const togo =
    wait.callsToGo === null ? null : (
      <>
        Queued: <span data-testid="calls-to-go">{wait.callsToGo.toLocaleString("en-US")}</span> {wait.callsToGo === 1 ? "call" : "calls"} to the reporting service before this
        dashboard&apos;s last one, its own included{replanned ? <span data-testid="replanned"> ({replanned})</span> : null}.{" "}
      </>
    );
  return (
    <p>
      {togo}
      The data is being fetched from the reporting service ({wait.running} {wait.running === 1 ? "query" : "queries"} under way or waiting).{ready}
    </p>
  );
}

/** A file name part safe in any file system. */
function fileStem(title: string): string {
  return title.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "dashboard";
}
