import { formatInstant } from "@/lib/report/metrics/format";
import type { SharedView } from "@/lib/features/sharing/view";
import { reportLines } from "@/lib/features/sharing/report-lines";
import { CohortGridTable } from "@/components/cohorts/cohort-grid";
import { PAGE_WIDTH } from "@/components/ui/page";
import { SharedGridDownloads, SharedTable } from "./lazy";
import { HeadlineFigures } from "./headline-figures";
import { SharedChart } from "./shared-chart";
import { PresetChips } from "./preset-chips";
import { PdfDownloadLink } from "@/components/report/pdf-link";


/**
 * A report rendered read-only on the server: a header that says exactly what is shown (the range
 * the visitor picked, its dates, the filters and the time zone), then its headline figures (each
 * measure's total and change), the chart and the table, or the retention grid for a cohort report,
 * as the Cohorts page draws it.
 */
export function ReportView({ view, base, pdfHref }: { view: Extract<SharedView, { kind: "ok" }>; base: string; pdfHref?: string }) {
  const filters = view.filters.length ? view.filters.join("; ") : "none";
  const asOf = `${formatInstant(view.asOf, view.timeZone)}${view.mode === "snapshot" ? " (snapshot)" : ""}`;
  const meta = reportLines(view, { sharedBy: true });
  return (
    <main className={`${PAGE_WIDTH} space-y-4 py-4 sm:py-6`}>
      <header>
        <h1 className="text-xl font-semibold sm:text-2xl">{view.title}</h1>
        <p className="mt-1 text-base text-slate-800" data-testid="share-subtitle">
          {view.rangeLabel}: {view.range.start} to {view.range.end} ({view.timeZone}) · Filters: {filters}
        </p>
        <dl className="mt-2 grid grid-cols-1 gap-x-6 gap-y-1 text-sm text-slate-700 sm:grid-cols-2">
          <div>
            <dt className="inline font-medium">Range: </dt>
            <dd className="inline" data-testid="share-range">
              {view.range.start} to {view.range.end} ({view.timeZone})
            </dd>
          </div>
          <div>
            <dt className="inline font-medium">Data as of: </dt>
            <dd className="inline">{asOf}</dd>
          </div>
          <div>
            <dt className="inline font-medium">Filters: </dt>
            <dd className="inline">{filters}</dd>
          </div>
          {view.periods ? (
            <div>
              <dt className="inline font-medium">Periods: </dt>
              <dd className="inline" data-testid="share-periods">
                {view.periods}
              </dd>
            </div>
          ) : null}
          <div>
            <dt className="inline font-medium">Shared by: </dt>
            <dd className="inline">{view.sharedBy}</dd>
          </div>
        </dl>
        <PresetChips base={base} preset={view.preset} allowed={view.allowedPresets} />
        {pdfHref ? (
          <div className="mt-2">
            <PdfDownloadLink href={pdfHref} />
          </div>
        ) : null}
      </header>

      {view.cohort ? (
        <section aria-label="Retention grid" className="flex flex-col gap-2">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-slate-700">{view.cohort.settings}</p>
            {view.cohort.grid.rows.length > 0 ? (
              <SharedGridDownloads grid={view.cohort.grid} meta={[...meta, ["Grid", view.cohort.settings]]} fileName={view.fileName} />
            ) : null}
          </div>
          {view.cohort.grid.rows.length > 0 ? (
            <CohortGridTable grid={view.cohort.grid} caption={view.cohort.caption} dimmed={false} />
          ) : (
            <p className="p-4 text-sm text-slate-700">No initial dates in this range up to today.</p>
          )}
        </section>
      ) : (
        <>
          {view.records > 0 ? <HeadlineFigures table={view.table} /> : null}
          {view.chart ? <SharedChart chart={view.chart} /> : null}
          {view.records === 0 ? (
            <section aria-label="Results" className="rounded border border-slate-200 bg-white">
              <p className="p-4 text-sm text-slate-700">No data for this range.</p>
            </section>
          ) : (
            <SharedTable table={view.table} meta={meta} fileName={view.fileName} />
          )}
        </>
      )}
    </main>
  );
}
