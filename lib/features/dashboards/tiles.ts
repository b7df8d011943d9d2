/**
 * What a tile shows, computed from its answers: the same builders Explore and Cohorts use (report
 * view, table, pivot, chart, retention grid), so a tile can never disagree with the report it opens.
 * Pure and serializable: the dashboard page builds these in the browser, the share page on the
 * server, from the same records.
 */
import type { ReportRecord } from "@/lib/contract/schemas";
import { chooseChart, buildChartData, type ChartData } from "@/lib/report/charts/shape";
import { buildCohortGrid, cohortCaption, type CohortGrid } from "@/lib/features/cohorts/grid";
import { evaluate, measureFor, measureMetrics } from "@/lib/report/metrics/kpis";
import { sumRecords } from "@/lib/report/metrics/sums";
import { buildPivot, type PivotModel } from "@/lib/report/table/pivot";
import { buildViewTable, comparedId, type TableCell, type TableModel } from "@/lib/report/table/table";
import { sortRows } from "@/lib/report/table/sort";
import type { ValueFormat } from "@/lib/report/metrics/format";
import { describePeriods, buildReportView } from "@/lib/report/periods/view";
import { chartMeasureId, effectiveSort, visibleMeasures } from "@/lib/report/state/explore";
import { TABLE_TILE_ROWS, tileMeasure } from "@/lib/report/state/dashboard";
import { type TileRequests, type TileSpec } from "@/lib/features/dashboards/tile-spec";
import { coverageDays } from "@/lib/report/periods/coverage";

export interface KpiModel {
  kind: "kpi";
  label: string;
  format: ValueFormat;
  value: TableCell;
  /** The measure over the compared days, and its change (points for rates, % for sums). */
  compared: TableCell | null;
  change: TableCell | null;
  comparedRange: { start: string; end: string } | null;
  /** One point per period of the tile's grain. */
  spark: { x: string; y: number | null }[];
  /** Why the value is still maturing (its chargebacks, refunds or alerts still arriving), else null. */
  maturing: string | null;
}

export type TileBody =
  | KpiModel
  | { kind: "chart"; chart: ChartData | null; empty: string | null }
  | { kind: "table"; table: TableModel; shownRows: number; totalRows: number }
  | { kind: "pivot"; pivot: PivotModel | { error: string } }
  | { kind: "cohort"; grid: CohortGrid; caption: string };

export interface TileModel {
  body: TileBody;
  range: { start: string; end: string };
  /** Grain and comparison in words, when set. */
  periods: string | null;
  records: number;
}

export interface TileAnswers {
  main: readonly ReportRecord[];
  comparison: readonly ReportRecord[] | null;
  /** The answer of the tile's coverage request, when it has one. */
  coverage?: readonly ReportRecord[] | null;
}

export function buildTileModel(spec: TileSpec, requests: TileRequests, answers: TileAnswers, today: string): TileModel {
  const range = { start: requests.main.request.start_date, end: requests.main.request.end_date };
  if (spec.kind === "cohort") {
    const s = spec.state;
    const grid = buildCohortGrid({ records: answers.main, range, today, rows: s.rows, cell: s.cell, cycles: s.cycles, trialDays: s.trialDays, periodDays: s.periodDays });
    return { body: { kind: "cohort", grid, caption: cohortCaption(s.cell, s.rows) }, range, periods: null, records: answers.main.length };
  }
  const s = spec.state;
  const metrics = requests.main.request.metrics ?? [];
  const cmp = requests.comparison;
  const comparison =
    cmp && answers.comparison && s.compare.kind !== "none"
      ? {
          compare: s.compare,
          range: { start: cmp.request.start_date, end: cmp.request.end_date },
          records: answers.comparison,
          dataDays: answers.coverage ? coverageDays(answers.coverage, { start: cmp.request.start_date, end: cmp.request.end_date }) : null,
        }
      : null;
  const view = buildReportView({ op: s.op, groupBy: s.groupBy, metrics, grain: s.grain, range, records: answers.main, comparison });
  const base = { range, periods: describePeriods(view, s.compare), records: answers.main.length };

  switch (spec.kind) {
    case "kpi": {
      const id = tileMeasure(s)!;
      const m = measureFor(id, s.op)!;
      // The totals row of the compared table holds the value, the compared value and the change,
      // computed exactly as Explore's table computes them.
      const total = buildViewTable(
        { op: s.op, groupBy: [], measures: [id] },
        buildReportView({ op: s.op, groupBy: [], metrics, grain: "day", range, records: answers.main, comparison }),
        { today },
      );
      const cells = total.totals.cells;
      const col = (cid: string) => {
        const i = total.columns.findIndex((c) => c.id === cid);
        return i < 0 ? null : (cells[i] ?? null);
      };
      const inPoints = m.format === "percent";
      const value = col(id) ?? { value: null, text: "—" };
      const sums = view.rows.map((r) => ({ x: r.period?.label ?? String(r.record.date ?? ""), y: evaluate(m, sumRecords([r.record], measureMetrics(m))).value }));
      return {
        ...base,
        body: {
          kind: "kpi",
          label: m.label,
          format: m.format,
          value,
          compared: col(comparedId(id, "cmp")),
          change: col(comparedId(id, inPoints ? "chg" : "pct")),
          comparedRange: comparison?.range ?? null,
          spark: sums,
          maturing: value.maturing ? (value.note ?? null) : null,
        },
      };
    }
    case "chart": {
      const plan = chooseChart(s.groupBy, s.chart);
      const measure = measureFor(chartMeasureId(s) ?? "", s.op);
      if (plan.type === "none" || !measure) return { ...base, body: { kind: "chart", chart: null, empty: "This report has no chart: group it by a dimension to draw one." } };
      const measure2 = s.chartMeasure2 ? (measureFor(s.chartMeasure2, s.op) ?? null) : null;
      return { ...base, body: { kind: "chart", chart: buildChartData(view, plan, measure, { measure2, today }), empty: null } };
    }
    case "table": {
      const full = buildViewTable({ op: s.op, groupBy: s.groupBy, measures: visibleMeasures(s) }, view, { today });
      const rows = sortRows(full, effectiveSort(s.groupBy, s.sort));
      return { ...base, body: { kind: "table", table: { ...full, rows: rows.slice(0, TABLE_TILE_ROWS) }, shownRows: Math.min(rows.length, TABLE_TILE_ROWS), totalRows: rows.length } };
    }
    case "pivot":
      return { ...base, body: { kind: "pivot", pivot: buildPivot(view, s.pivotMeasure ?? visibleMeasures(s)[0] ?? "", { today }) } };
  }
}
