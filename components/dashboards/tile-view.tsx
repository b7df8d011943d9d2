import type { PivotModel } from "@/lib/report/table/pivot";
import { formatCount, formatValue } from "@/lib/report/metrics/format";
import { MATURING_WORD } from "@/lib/report/metrics/maturity";
import type { TableCell, TableModel } from "@/lib/report/table/table";
import type { KpiModel, TileBody } from "@/lib/features/dashboards/tiles";
import { CohortGridTable } from "@/components/cohorts/cohort-grid";
import { PivotGrid } from "@/components/report/pivot-grid";
import { ReportTable } from "@/components/report/report-table";
import { cn } from "@/components/ui/cn";
import { TileChart } from "./lazy-tile-chart";

/** A change's verdict as colour; the text says it in words too ("(better)", "(worse)"). */
const toneClass = (tone: TableCell["tone"]) => (tone === "good" ? "text-emerald-800" : tone === "bad" ? "text-red-800" : undefined);

function Empty({ children }: { children: string }) {
  return <p className="rounded-md border border-dashed border-slate-300 p-4 text-center text-sm text-slate-700">{children}</p>;
}

// ---------------------------------------------------------------------------------------------
// KPI

const SPARK_W = 120;
const SPARK_H = 32;

/** The KPI's trend, one point per period; periods with no value are left out of the line. */
function Sparkline({ spark, format, label }: { spark: KpiModel["spark"]; format: KpiModel["format"]; label: string }) {
  const points = spark.flatMap((p, i) => (p.y === null || !Number.isFinite(p.y) ? [] : [{ i, x: p.x, y: p.y }]));
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return null;
  const ys = points.map((p) => p.y);
  const min = Math.min(...ys);
  const max = Math.max(...ys);
  const pad = 2;
  const px = (i: number) => (spark.length <= 1 ? SPARK_W / 2 : pad + (i / (spark.length - 1)) * (SPARK_W - 2 * pad));
  const py = (y: number) => (max === min ? SPARK_H / 2 : pad + (1 - (y - min) / (max - min)) * (SPARK_H - 2 * pad));
  const summary =
    points.length === 1
      ? `${label} trend: one period, ${first.x}: ${formatValue(first.y, format)}`
      : `${label} trend over ${spark.length} periods: from ${formatValue(first.y, format)} (${first.x}) to ${formatValue(last.y, format)} (${last.x})`;
  return (
    <svg role="img" aria-label={summary} width={SPARK_W} height={SPARK_H} viewBox={`0 0 ${SPARK_W} ${SPARK_H}`} className="block overflow-visible text-blue-700">
      {points.length === 1 ? (
        <circle cx={px(first.i)} cy={py(first.y)} r={2} fill="currentColor" />
      ) : (
        <polyline
          points={points.map((p) => `${px(p.i).toFixed(1)},${py(p.y).toFixed(1)}`).join(" ")}
          fill="none"
          stroke="currentColor"
          strokeWidth={1.5}
          strokeLinejoin="round"
          strokeLinecap="round"
        />
      )}
    </svg>
  );
}

function KpiView({ body, title }: { body: KpiModel; title: string }) {
  return (
    <div className="flex flex-col gap-1">
      {/* The measure is named here only when the tile's title does not already say it. */}
      {title !== body.label ? <p className="text-sm text-slate-700">{body.label}</p> : null}
      <p className="flex flex-wrap items-baseline gap-2">
        <span className="text-3xl font-semibold text-slate-900 tabular-nums" data-testid="kpi-value">
          {body.maturing ? formatValue(typeof body.value.value === "number" ? body.value.value : null, body.format) : body.value.text}
        </span>
        {/* Beside the value, in words (not only a colour): its late events are still arriving. */}
        {body.maturing ? (
          <span className="rounded border border-amber-500 bg-amber-50 px-1.5 text-xs font-medium text-amber-900" title={body.maturing} data-testid="kpi-maturing">
            {MATURING_WORD}
          </span>
        ) : null}
      </p>
      {body.maturing ? <p className="text-xs text-slate-700">{body.maturing}</p> : null}
      {body.change ? (
        <p className={cn("text-sm font-medium tabular-nums", toneClass(body.change.tone) ?? "text-slate-800")} title={body.change.note}>
          {body.change.text}
        </p>
      ) : null}
      {body.compared ? (
        <p className="text-xs text-slate-700 tabular-nums" title={body.compared.note}>
          vs {body.comparedRange ? `${body.comparedRange.start} to ${body.comparedRange.end}` : "the compared days"}: {body.compared.text}
        </p>
      ) : null}
      <div className="mt-1">
        <Sparkline spark={body.spark} format={body.format} label={body.label} />
      </div>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Table

function TableView({ table, shownRows, totalRows, label }: { table: TableModel; shownRows: number; totalRows: number; label: string }) {
  if (totalRows === 0) return <Empty>No data for this range.</Empty>;
  return (
    <div className="flex flex-col gap-1">
      <ReportTable table={table} label={label} compact />
      {totalRows > shownRows ? (
        <p className="text-xs text-slate-700">
          Top {shownRows.toLocaleString("en-US")} of {formatCount(totalRows, "row")}; the totals count them all.
        </p>
      ) : null}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Pivot

function PivotView({ pivot, label }: { pivot: PivotModel | { error: string }; label: string }) {
  if ("error" in pivot) return <Empty>{pivot.error}</Empty>;
  if (pivot.rows.length === 0) return <Empty>No records in this range.</Empty>;
  return <PivotGrid model={pivot} label={label} compact />;
}

// ---------------------------------------------------------------------------------------------

/**
 * What a tile shows, from its serializable TileBody (lib/features/dashboards/tiles.ts): a KPI number with its
 * change and trend, a chart, the top rows of a table, a pivot or a retention grid; the table and the
 * pivot are the report's one table and pivot renderers, compact. No hooks of its own (the chart, the
 * table and the pivot are client components), so a server page can render it too.
 */
export function TileBodyView({
  body,
  label = "Tile",
}: {
  body: TileBody;
  /** The report time zone (what the tile's dates are days of); reserved, a body holds no instants. */
  timeZone?: string;
  /** The tile's title, naming its scrollable regions for assistive tech. */
  label?: string;
}) {
  switch (body.kind) {
    case "kpi":
      return <KpiView body={body} title={label} />;
    case "chart":
      return body.chart ? <TileChart chart={body.chart} /> : <Empty>{body.empty ?? "Nothing to draw."}</Empty>;
    case "table":
      return <TableView table={body.table} shownRows={body.shownRows} totalRows={body.totalRows} label={label} />;
    case "pivot":
      return <PivotView pivot={body.pivot} label={label} />;
    case "cohort":
      return body.grid.rows.length > 0 ? (
        <CohortGridTable grid={body.grid} caption={body.caption} dimmed={false} />
      ) : (
        <Empty>No initial dates in this range up to today.</Empty>
      );
  }
}
