"use client";
import { SaveReportButton } from "@/components/saved-reports/save-report-button";
import { useMemo } from "react";
import { cohortCaption, cycleOffsetDays } from "@/lib/features/cohorts/labels";
import { cohortLook, serializeCohort, type CohortState, type CohortLook } from "@/lib/report/state/cohort";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { ReportColumns, ResultsPlaceholder } from "@/components/report/report-layout";
import { Spinner } from "@/components/ui/spinner";
import { lazyPart } from "@/components/ui/lazy-part";
import { ReportStatus } from "@/components/report/report-status";
import { useReportPage } from "@/components/report/use-report-page";
import type { UrlLooks } from "@/components/report/use-url-look";
import { UrlProblems } from "@/components/report/lazy-url-problems";
import { CohortForm } from "./cohort-form";
import { CohortOptions } from "./cohort-options";

// The grid's code is loaded when there is a grid to draw (fetched beside the report's answer); the
// box keeps the placeholder's size meanwhile.
const CohortGridTable = lazyPart(
  () => import("./cohort-grid").then((m) => m.CohortGridTable),
  <div className="flex h-96 items-center justify-center gap-2 text-sm text-slate-700">
    <Spinner /> Loading the grid…
  </div>,
);

const loadCohortResults = () => import("./cohort-results");

/** Cohorts: the container. One request (days × billing cycles); rows, cells and masking are drawn here. */
export function CohortReport({
  timeZone,
  today: serverToday,
  looks,
}: {
  timeZone: string;
  today: string;
  /** The server's look at the page's URL (cohortLook in lib/report/state/cohort.ts), as of `today`. */
  looks: UrlLooks<CohortLook>;
}) {
  // The grid's math and CSV come with the grid's code, beside the first answer.
  const { today, look, write, report, results: lib, apply } = useReportPage({
    timeZone,
    serverToday,
    looks,
    lookOf: cohortLook,
    loadResults: loadCohortResults,
    preloadResults: CohortGridTable.preload,
  });
  const { state, hasReport, problems } = look;
  const data = report.data;

  const run = (draft: CohortState) => apply(serializeCohort({ ...state, range: draft.range, filters: draft.filters }), report.rerun);
  const setView = (p: Partial<CohortState>) => write(serializeCohort({ ...state, ...p }), "replace");

  const { rows, cell, cycles, trialDays, periodDays } = state;
  const grid = useMemo(
    () => (lib && data ? lib.cohortGrid(data, today, { rows, cell, cycles, trialDays, periodDays }) : null),
    [lib, data, today, rows, cell, cycles, trialDays, periodDays],
  );

  const caption = cohortCaption(state.cell, state.rows);

  const exportCsv = (dataOnly: boolean) => {
    if (lib && grid && data) lib.exportCohortCsv(grid, data, state, timeZone, dataOnly);
  };
  const exportXlsx = () => {
    if (lib && grid && data) void lib.exportCohortXlsx(grid, data, state, timeZone);
  };

  const placeholder = (
    <ResultsPlaceholder
      phase={report.phase}
      drawing={Boolean(data && !lib)}
      empty={{ title: "No cohorts yet", hint: "Choose a range of initial dates, then press Run report." }}
    />
  );

  return (
    <ReportColumns
      settingsHeading="Cohort settings"
      settings={<CohortForm applied={state} appliedKey={look.key} hasReport={hasReport} today={today} timeZone={timeZone} onRun={run} />}
    >
      {problems.length > 0 ? (
        <UrlProblems problems={problems} onOpenNearest={() => write(serializeCohort(state), "push")} />
      ) : (
        <ReportStatus phase={report.phase} timeZone={timeZone} onCancel={report.cancel} stale={report.stale} />
      )}
      <section aria-labelledby="grid-heading" className="flex flex-col gap-3">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="grid-heading" className="text-lg font-semibold">
            Retention grid
          </h2>
          <span className="flex flex-wrap items-center gap-3">
            <SaveReportButton page="cohorts" disabled={!grid} />
            <Button onClick={() => exportCsv(false)} disabled={!grid || report.stale}>
              Download CSV
            </Button>
            <Button onClick={() => exportCsv(true)} disabled={!grid || report.stale} title="Header row first, no notes or summary row: for spreadsheets and BI tools">
              Data only CSV
            </Button>
            <Button onClick={exportXlsx} disabled={!grid || report.stale} title="An Excel workbook: the question on its first sheet, numbers formatted, the header frozen and filterable">
              Download Excel
            </Button>
          </span>
        </div>
        <CohortOptions state={state} onChange={setView} />
        <p className="text-xs text-slate-600">
          Cycle 1 falls due {cycleOffsetDays(1, state)} days after the initial date and each later cycle {state.periodDays} days after the one
          before; a cohort has reached a cycle once its youngest day has been due for it by today ({today}). Cells not reached yet are hatched,
          not shown as 0.
        </p>
        {grid && grid.rows.length > 0 ? (
          <CohortGridTable grid={grid} caption={caption} dimmed={report.stale} />
        ) : grid ? (
          <div className="h-96">
            <EmptyState title="No cohorts">No initial dates in this range up to today.</EmptyState>
          </div>
        ) : (
          <div className="h-96">{placeholder}</div>
        )}
      </section>
    </ReportColumns>
  );
}
