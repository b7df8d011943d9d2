import type { PivotCell, PivotModel } from "@/lib/report/table/pivot";
import { formatCount, formatValue } from "@/lib/report/metrics/format";
import { MATURING_WORD } from "@/lib/report/metrics/maturity";
import { TOTAL_LABEL, TOTALS_LABEL } from "@/lib/report/metrics/labels";
import type { TableCell, TableModel } from "@/lib/report/table/table";
import type { KpiModel, TileBody } from "@/lib/features/dashboards/tiles";
import { CohortGridTable } from "@/components/cohorts/cohort-grid";
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

const align = (kind: string) => (kind === "dimension" ? "text-left" : "text-right tabular-nums");

function TableView({ table, shownRows, totalRows, label }: { table: TableModel; shownRows: number; totalRows: number; label: string }) {
  if (totalRows === 0) return <Empty>No data for this range.</Empty>;
  const cellClass = (i: number, cell: TableCell) => cn("px-2 py-1.5 whitespace-nowrap", align(table.columns[i]?.kind ?? "metric"), toneClass(cell.tone));
  return (
    <div className="flex flex-col gap-1">
      <div tabIndex={0} role="region" aria-label={`${label} (scrolls sideways)`} className="overflow-x-auto rounded-md border border-slate-200 print:overflow-visible">
        <table className="w-full text-sm">
          <thead className="bg-slate-100">
            <tr>
              {table.columns.map((c) => (
                <th key={c.id} scope="col" className={cn("px-2 py-1.5 font-medium whitespace-nowrap", c.kind === "dimension" ? "text-left" : "text-right")}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((r) => (
              <tr key={r.key} className="border-t border-slate-100">
                {r.cells.map((cell, i) =>
                  i === 0 ? (
                    <th key={i} scope="row" className={cn(cellClass(i, cell), "font-medium")} title={cell.note}>
                      {cell.text}
                    </th>
                  ) : (
                    <td key={i} className={cellClass(i, cell)} title={cell.note}>
                      {cell.text}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t-2 border-slate-300 bg-slate-50 font-semibold">
            <tr>
              {table.totals.cells.map((cell, i) =>
                i === 0 ? (
                  <th key={i} scope="row" className={cellClass(i, cell)} title={cell.note}>
                    {cell.text || TOTALS_LABEL}
                  </th>
                ) : (
                  <td key={i} className={cellClass(i, cell)} title={cell.note}>
                    {cell.text}
                  </td>
                ),
              )}
            </tr>
          </tfoot>
        </table>
      </div>
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

function PivotValue({ cell, className }: { cell: PivotCell; className?: string }) {
  return (
    <td className={cn("px-2 py-1.5 text-right whitespace-nowrap tabular-nums", cell.empty && "text-slate-700 italic", className)} title={cell.note}>
      {cell.empty ? (
        <>
          <span aria-hidden="true">{cell.text}</span>
          <span className="sr-only">no records</span>
        </>
      ) : (
        cell.text
      )}
    </td>
  );
}

function PivotView({ pivot, label }: { pivot: PivotModel | { error: string }; label: string }) {
  if ("error" in pivot) return <Empty>{pivot.error}</Empty>;
  if (pivot.rows.length === 0) return <Empty>No records in this range.</Empty>;
  const rows = pivot.rowDimensions.map((d) => d.label).join(" and ");
  const caption = `${pivot.measure.label} by ${rows} (rows) and ${pivot.columnDimension.label} (columns), with a total for each row and column.`;
  return (
    <div className="flex flex-col gap-1">
      {pivot.notes.length > 0 ? <p className="text-xs text-slate-700">{pivot.notes.join(" ")}</p> : null}
      <div tabIndex={0} role="region" aria-label={`${label}: pivot (scrollable)`} className="max-h-[28rem] overflow-auto rounded-md border border-slate-200 print:max-h-none print:overflow-visible">
        <table className="w-full text-sm">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-slate-100">
            <tr>
              {pivot.rowDimensions.map((d) => (
                <th key={d.id} scope="col" className="px-2 py-1.5 text-left font-medium whitespace-nowrap">
                  {d.label}
                </th>
              ))}
              {pivot.columns.map((c) => (
                <th key={c.key} scope="col" className={cn("px-2 py-1.5 text-right font-medium whitespace-nowrap", c.isOther && "italic")} title={c.title}>
                  {c.label}
                </th>
              ))}
              <th scope="col" className="border-l-2 border-l-slate-300 px-2 py-1.5 text-right font-medium">
                {TOTAL_LABEL}
              </th>
            </tr>
          </thead>
          <tbody>
            {pivot.rows.map((r) => (
              <tr key={r.key} className="border-t border-slate-100">
                {r.dims.map((d, i) => (
                  <th key={i} scope="row" className="px-2 py-1.5 text-left font-medium whitespace-nowrap" title={d.title}>
                    {d.text}
                  </th>
                ))}
                {r.cells.map((c, ci) => (
                  <PivotValue key={pivot.columns[ci]?.key ?? ci} cell={c} />
                ))}
                <PivotValue cell={r.total} className="border-l-2 border-l-slate-300 bg-slate-50 font-semibold" />
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t-2 border-slate-300 bg-slate-50 font-semibold">
            <tr>
              <th scope="row" colSpan={pivot.rowDimensions.length} className="px-2 py-1.5 text-left">
                {TOTALS_LABEL}
              </th>
              {pivot.columnTotals.map((c, ci) => (
                <PivotValue key={pivot.columns[ci]?.key ?? ci} cell={c} />
              ))}
              <PivotValue cell={pivot.grandTotal} className="border-l-2 border-l-slate-300 bg-slate-100" />
            </tr>
          </tfoot>
        </table>
      </div>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------

/**
 * What a tile shows, from its serializable TileBody (lib/features/dashboards/tiles.ts): a KPI number with its
 * change and trend, a chart, the top rows of a table, a pivot or a retention grid. No hooks of its
 * own (the chart is a client component), so a server page can render it too.
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
