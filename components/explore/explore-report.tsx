"use client";
import { useMemo, useState } from "react";
import { OPERATION_TABLE } from "@/lib/contract/operations";
import { formatCount } from "@/lib/report/metrics/format";
import type { ReportView } from "@/lib/report/periods/view";
import { type ExploreState, type ExploreLook, TABLE_LAYOUTS, exploreLook, serializeExplore, sortAfterRegroup } from "@/lib/report/state/explore";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { ReportColumns, ResultsPlaceholder } from "@/components/report/report-layout";
import { ReportStatus } from "@/components/report/report-status";
import { useReport } from "@/components/report/use-report";
import { useReportPage } from "@/components/report/use-report-page";
import type { UrlLooks } from "@/components/report/use-url-look";
import { UrlProblems } from "@/components/report/lazy-url-problems";
import { EmptyResultWords } from "@/components/report/filter-empty-result";
import { ChartPlaceholder } from "./chart-placeholder";
import type { ColumnOptions } from "./columns-picker";
import { ReportForm } from "./report-form";
import { ChartPanel, PivotTable, ResultsTable, SaveReportButton, preloadResults } from "./lazy-results";

const loadResultsModel = () => import("./results-model");

/**
 * Explore: the container. It reads the report from the URL, runs it, and lays out the form, the
 * status line, the chart and the table; every panel keeps its size whatever state it is in.
 */
export function ExploreReport({
  timeZone,
  today: serverToday,
  looks,
  columns,
}: {
  timeZone: string;
  today: string;
  /** The server's look at the page's URL (exploreLook in lib/report/state/explore.ts), as of `today`. */
  looks: UrlLooks<ExploreLook>;
  columns: ColumnOptions;
}) {
  // What turns an answer into a view, a table and a CSV is fetched beside the first answer, not after it.
  const { today, look, write, report, results: lib, apply } = useReportPage({
    timeZone,
    serverToday,
    looks,
    lookOf: exploreLook,
    loadResults: loadResultsModel,
    preloadResults,
  });
  const { state, hasReport, problems } = look;
  // The comparison is the same request over other days: one more answer at most, none when cached.
  const comparison = useReport(look.comparison);
  const comparing = state.compare.kind !== "none";
  const stale = report.stale || (comparing && comparison.stale);
  // Both sides, or nothing: a table half compared would read as a comparison with zeros.
  const data = comparing && !comparison.data ? null : report.data;
  const cmpData = comparing ? comparison.data : null;
  // Which compared days hold data, when the comparison's own answer cannot say (a breakdown not by
  // date, chargebacks alone): their attempts by date, usually answered from what is kept.
  const coverage = useReport(look.coverage);
  const covData = comparing ? coverage.data : null;

  const run = (draft: ExploreState) =>
    apply(serializeExplore({ ...draft, sort: sortAfterRegroup(state.sort, state.groupBy, draft.groupBy), chart: state.chart, chartMeasure: state.chartMeasure }), () => {
      report.rerun();
      if (comparing) comparison.rerun();
      if (look.coverage) coverage.rerun();
    });
  const setView = (p: Partial<ExploreState>) => write(serializeExplore({ ...state, ...p }), "replace");

  const measures = useMemo(() => (lib && data ? lib.computable(state, data) : []), [lib, state, data]);
  const { grain, compare } = state;
  const view: ReportView | null = useMemo(() => (lib && data ? lib.reportView({ grain, compare }, data, cmpData, covData) : null), [lib, data, cmpData, covData, grain, compare]);
  const model = useMemo(() => (lib && view ? lib.tableModel(view, measures, today) : null), [lib, view, measures, today]);
  const notice = useMemo(() => (lib && model ? lib.maturityNotice(state, model) : null), [lib, state, model]);
  const groupedBy = data?.request.group_by;
  const sort = useMemo(() => (lib ? lib.effectiveSort(groupedBy ?? [], state.sort) : null), [lib, groupedBy, state.sort]);
  const rows = useMemo(() => (lib && model ? lib.sortRows(model, sort) : []), [lib, model, sort]);

  // A pivot needs two grouped dimensions: its last one becomes the columns.
  const canPivot = (view?.groupBy.length ?? 0) >= 2;
  const pivotShown = canPivot && state.table === "pivot";
  const pivotMeasure = state.pivotMeasure !== null && measures.includes(state.pivotMeasure) ? state.pivotMeasure : (measures[0] ?? null);

  const onSort = (key: string) => {
    if (lib && model) setView({ sort: lib.nextSort(model, sort, key) });
  };

  const exportCsv = (dataOnly: boolean) => {
    if (!lib || !model || !data) return;
    // The export is what is shown: the pivot when the pivot is on screen.
    void lib.exportCsv({ state, data, view, model, rows, pivotMeasure: pivotShown && view ? pivotMeasure : null, today, timeZone, dataOnly });
  };
  // A long table's workbook is written by the server and may wait for an answer: the button says so, and a failure is shown.
  const [xlsx, setXlsx] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const exportXlsx = () => {
    if (!lib || !model || !data || xlsx.busy) return;
    setXlsx({ busy: true, error: null });
    lib
      .exportXlsx({ state, data, view, model, rows, pivotMeasure: pivotShown && view ? pivotMeasure : null, today, timeZone })
      .then(
        () => setXlsx({ busy: false, error: null }),
        (e: unknown) => {
          const action = e instanceof Error && "action" in e && typeof e.action === "string" ? ` ${e.action}` : "";
          setXlsx({ busy: false, error: `The workbook could not be made: ${e instanceof Error ? e.message : String(e)}${action}` });
        },
      );
  };

  const placeholder = (what: string) => (
    <ResultsPlaceholder
      // The report may be done while its comparison still runs: the screen waits for both.
      phase={report.phase.kind === "done" && comparing ? comparison.phase : report.phase}
      drawing={Boolean(data && !lib)}
      empty={{ title: `No ${what} yet`, hint: "Choose the report's settings, then press Run report." }}
    />
  );

  const tableLabel = data
    ? `${OPERATION_TABLE[data.op].label}, ${data.request.start_date} to ${data.request.end_date}`
    : "Report results";

  return (
    <ReportColumns
      settingsHeading="Report settings"
      settings={<ReportForm applied={state} appliedKey={look.key} hasReport={hasReport} today={today} timeZone={timeZone} columns={columns} onRun={run} />}
    >
      {problems.length > 0 ? (
        <UrlProblems problems={problems} onOpenNearest={() => write(serializeExplore(state), "push")} />
      ) : (
        <>
          <ReportStatus phase={report.phase} timeZone={timeZone} onCancel={report.cancel} stale={report.stale} />
          {comparing ? (
            <ReportStatus phase={comparison.phase} timeZone={timeZone} onCancel={comparison.cancel} stale={comparison.stale} subject="Comparison" />
          ) : null}
          {/* Which compared days hold data is a third request when the comparison cannot tell: while it
              waits it says where it stands like the other two, and gives way to the coverage it brings. */}
          {comparing && look.coverage && coverage.phase.kind !== "done" && coverage.phase.kind !== "idle" ? (
            <ReportStatus phase={coverage.phase} timeZone={timeZone} onCancel={coverage.cancel} stale={coverage.stale} subject="Compared days with data" />
          ) : null}
        </>
      )}
      {notice ? (
        <div
          role="note"
          aria-label={notice.kind === "maturing" ? "Maturing rates" : "Event-dated rates"}
          data-testid="maturity-notice"
          className={`flex flex-col gap-2 rounded-md border p-3 text-sm text-slate-900 ${notice.kind === "maturing" ? "border-amber-400 bg-amber-50" : "border-slate-300 bg-slate-50"}`}
        >
          <p>{notice.text}</p>
          <div>
            {/* The swap is a new report (other metrics to fetch): a step in the history, like Run report. */}
            <Button onClick={() => write(serializeExplore(notice.next), "push")}>{notice.action}</Button>
          </div>
        </div>
      ) : null}
      <section aria-labelledby="chart-heading" className="flex flex-col gap-2">
        <h2 id="chart-heading" className="text-lg font-semibold">
          Chart
        </h2>
        {lib && view ? (
          <ChartPanel
            view={view}
            measures={measures}
            measureFor={lib.measureFor}
            chartKind={state.chart}
            measureId={state.chartMeasure}
            measure2Id={state.chartMeasure2}
            onChange={(p) => setView(p)}
            placeholder={placeholder("chart")}
            dimmed={stale}
            today={today}
          />
        ) : (
          <ChartPlaceholder chartKind={state.chart}>{placeholder("chart")}</ChartPlaceholder>
        )}
      </section>
      <section aria-labelledby="results-heading" className="flex flex-col gap-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="results-heading" className="text-lg font-semibold">
            Results
          </h2>
          <div className="flex flex-wrap items-center gap-3">
            <p className="text-sm text-slate-700">{model ? formatCount(rows.length, "row") : ""}</p>
            {canPivot ? (
              <div role="group" aria-label="Table layout" className="flex overflow-hidden rounded-md border border-slate-400">
                {TABLE_LAYOUTS.map((t) => (
                  <button
                    key={t}
                    type="button"
                    aria-pressed={state.table === t}
                    onClick={() => setView({ table: t, ...(t === "rows" ? { pivotMeasure: null } : {}) })}
                    className={`min-h-9 px-3 text-sm ${state.table === t ? "bg-slate-800 text-white" : "bg-white text-slate-800 hover:bg-slate-100"}`}
                  >
                    {t === "rows" ? "Rows" : "Pivot"}
                  </button>
                ))}
              </div>
            ) : null}
            <SaveReportButton enabled={model !== null} />
            <Button onClick={() => void exportCsv(false)} disabled={!model || stale}>
              Download CSV
            </Button>
            <Button onClick={() => void exportCsv(true)} disabled={!model || stale} title="Header row first, no notes or totals: for spreadsheets and BI tools">
              Data only CSV
            </Button>
            <Button onClick={exportXlsx} disabled={!model || stale || xlsx.busy} title="An Excel workbook: the question on its first sheet, numbers formatted, the header frozen and filterable">
              {xlsx.busy ? "Preparing Excel…" : "Download Excel"}
            </Button>
          </div>
        </div>
        {xlsx.error ? (
          <p role="alert" className="text-sm font-medium text-red-700">
            {xlsx.error}
          </p>
        ) : null}
        {model && model.rows.length === 0 && !stale ? (
          <div className="h-[480px]">
            <EmptyState title="No records">
              <EmptyResultWords filters={state.filters} />
            </EmptyState>
          </div>
        ) : model && view && pivotShown && pivotMeasure ? (
          <PivotTable view={view} measureId={pivotMeasure} measures={measures} onMeasure={(id) => setView({ pivotMeasure: id })} dimmed={stale} label={tableLabel} today={today} />
        ) : model ? (
          <ResultsTable model={model} rows={rows} sort={sort} onSort={onSort} dimmed={stale} label={tableLabel} />
        ) : (
          <div className="h-[480px]">{placeholder("results")}</div>
        )}
      </section>
    </ReportColumns>
  );
}
