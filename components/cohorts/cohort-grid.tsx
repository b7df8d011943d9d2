import type { CohortGrid, GridCell, GridRow } from "@/lib/features/cohorts/grid";
import { colourFor, legendSteps } from "@/lib/features/cohorts/color";
import { formatCompact, formatValue } from "@/lib/report/metrics/format";
import { cn } from "@/components/ui/cn";

const MASK_STYLE = {
  backgroundImage: "repeating-linear-gradient(135deg, var(--chart-mask-a) 0 6px, var(--chart-mask-b) 6px 12px)",
} as const;

function cellTitle(grid: CohortGrid, c: GridCell): string | undefined {
  if (c.masked) return "Not reached yet: this cohort's youngest customers have not been due for this cycle.";
  if (c.numerator === undefined || c.denominator === undefined) return undefined;
  const f = grid.format === "percent" ? "count" : "currency";
  return grid.format === "percent"
    ? `${formatValue(c.numerator, f)} approvals ÷ ${formatValue(c.denominator, "count")}`
    : `${formatValue(c.numerator, f)} net ÷ ${formatValue(c.denominator, "count")} customers`;
}

function Cell({ grid, cell }: { grid: CohortGrid; cell: GridCell }) {
  if (cell.masked) {
    return (
      <td className="border border-white px-2 py-1.5 text-center text-slate-600" style={MASK_STYLE} title={cellTitle(grid, cell)} data-masked="true">
        <span className="sr-only">not reached yet</span>
      </td>
    );
  }
  const colour = cell.value === null ? null : colourFor(cell.value, grid.min, grid.max);
  return (
    <td
      className="border border-white px-2 py-1.5 text-right tabular-nums"
      style={colour ? { background: colour.background, color: colour.color } : undefined}
      title={cellTitle(grid, cell)}
    >
      {formatValue(cell.value, grid.format)}
    </td>
  );
}

function Row({ grid, row }: { grid: CohortGrid; row: GridRow }) {
  return (
    <tr>
      <th scope="row" className="sticky left-0 z-10 border-r border-slate-300 bg-white px-3 py-1.5 text-left font-medium whitespace-nowrap" title={row.note}>
        {row.label}
      </th>
      <td className="px-2 py-1.5 text-right tabular-nums">{formatValue(row.customers, "count")}</td>
      {row.cells.map((c) => (
        <Cell key={c.cycle} grid={grid} cell={c} />
      ))}
    </tr>
  );
}

/** The retention grid: rows are cohorts, columns billing cycles; colour by value, hatched when not reached. */
export function CohortGridTable({ grid, caption, dimmed }: { grid: CohortGrid; caption: string; dimmed: boolean }) {
  const cycles = Array.from({ length: grid.cycles + 1 }, (_, k) => k);
  return (
    <div className="flex flex-col gap-2">
      <div
        className={cn("relative max-h-[36rem] overflow-auto rounded-md border border-slate-300 bg-white transition-opacity", dimmed && "opacity-50")}
        tabIndex={0}
        role="region"
        aria-label={`${caption} (scrollable)`}
      >
        <table className="w-full border-collapse text-sm" aria-busy={dimmed}>
          <caption className="sr-only">{caption}</caption>
          <thead className="sticky top-0 z-20 bg-slate-100">
            <tr>
              <th scope="col" className="sticky left-0 z-30 border-r border-slate-300 bg-slate-100 px-3 py-2 text-left">
                Cohort
              </th>
              <th scope="col" className="px-2 py-2 text-right">
                Customers
              </th>
              {cycles.map((k) => (
                <th key={k} scope="col" className="px-2 py-2 text-right whitespace-nowrap">
                  Cycle {k}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {grid.rows.map((r) => (
              <Row key={r.key} grid={grid} row={r} />
            ))}
          </tbody>
          <tfoot className="sticky bottom-0 z-20 border-t-2 border-slate-400 bg-slate-50 font-semibold">
            <Row grid={grid} row={grid.summary} />
          </tfoot>
        </table>
      </div>
      <ColourLegend grid={grid} />
    </div>
  );
}

function ColourLegend({ grid }: { grid: CohortGrid }) {
  const steps = legendSteps(grid.min, grid.max);
  return (
    <div className="flex flex-wrap items-center gap-3 text-xs text-slate-700">
      <span>Colour scale:</span>
      <ul aria-label="Colour scale" className="flex flex-wrap items-start">
        {steps.map((s, i) => (
          <li key={i} className="flex w-12 flex-col items-start">
            <span aria-hidden="true" className="block h-3 w-full border-y border-slate-200" style={{ background: s.colour.background }} />
            <span className="tabular-nums">{i === steps.length - 1 ? "≥ " : ""}{formatCompact(s.value, grid.format)}</span>
          </li>
        ))}
      </ul>
      <span className="flex items-center gap-1">
        <span aria-hidden="true" className="inline-block h-3 w-6" style={MASK_STYLE} /> not reached yet (masked, not 0)
      </span>
    </div>
  );
}
