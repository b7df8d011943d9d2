"use client";
/**
 * The chart of a report's results, drawn with recharts: Explore's, a shared report's and a dashboard
 * chart tile's, each loading it lazily so the library is in no page's first load. It measures its
 * own width and lays the category axis out as lib/report/charts/labels.ts decides (level, slanted, bars on
 * their side, cut or thinned labels, always with a note when a label is not shown whole); what is
 * dashed, stacked or marked as maturing is lib/report/charts/drawing.ts's.
 */
import { useMemo, type ReactNode } from "react";
import { Bar, CartesianGrid, Cell, ComposedChart, Line, Tooltip, XAxis, YAxis } from "recharts";
import { describeChart } from "@/lib/report/charts/caption";
import { barLook, drawnMaturing, lineDash, stackOf, valueMaturing } from "@/lib/report/charts/drawing";
import { labelLayout, shorten, type LabelLayout } from "@/lib/report/charts/labels";
import { chartScale, formatTick } from "@/lib/report/charts/ticks";
import { spanText, tickText, type ChartData, type ChartDatum, type ChartMeasureInfo, type ChartSeries } from "@/lib/report/charts/shape";
import { changeCells } from "@/lib/report/table/change";
import { comparedCoverageText, type Coverage } from "@/lib/report/periods/coverage";
import { formatValue } from "@/lib/report/metrics/format";
import { MATURING_WORD } from "@/lib/report/metrics/maturity";
import { chartSeriesColor } from "./series-colors";
import { useBoxWidth } from "./use-box-width";

const TICK_FILL = "var(--chart-tick)";

/** What recharts passes a custom tick that is read here. */
interface TickArgs {
  x: number | string;
  y: number | string;
  payload: { value: unknown };
}

/** A category label: cut as the layout says, its full text in a <title> (a native tooltip). */
function CategoryTick({ args, chart, layout, side }: { args: TickArgs; chart: ChartData; layout: LabelLayout; side: "x" | "y" }) {
  const full = tickText(chart, String(args.payload.value ?? ""));
  const text = shorten(full, layout.maxChars);
  const common = { fontSize: 12, fill: TICK_FILL };
  if (side === "y") {
    return (
      <g transform={`translate(${args.x},${args.y})`}>
        <text {...common} x={-4} dy={4} textAnchor="end">
          <title>{full}</title>
          {text}
        </text>
      </g>
    );
  }
  return (
    <g transform={`translate(${args.x},${args.y})`}>
      {layout.angle === 0 ? (
        <text {...common} dy={14} textAnchor="middle">
          <title>{full}</title>
          {text}
        </text>
      ) : (
        <text {...common} dy={10} dx={-2} textAnchor="end" transform={`rotate(${layout.angle})`}>
          <title>{full}</title>
          {text}
        </text>
      )}
    </g>
  );
}

/** What recharts passes a custom dot that is read here. */
interface DotArgs {
  cx?: number;
  cy?: number;
  index?: number;
  payload?: ChartDatum;
}

/** A line's point: a hollow ring where the value is still maturing (visible at any density), else the usual dot. */
function PointDot({ args, series, color, small }: { args: DotArgs; series: ChartSeries; color: string; small: boolean }) {
  const { cx, cy, payload } = args;
  if (cx === undefined || cy === undefined || !Number.isFinite(cx) || !Number.isFinite(cy)) return <g />;
  if (payload && drawnMaturing(series, payload)) {
    return (
      <circle cx={cx} cy={cy} r={4.5} fill="var(--chart-surface)" stroke={color} strokeWidth={2} data-maturing="true">
        <title>{`${payload.x}: ${MATURING_WORD}`}</title>
      </circle>
    );
  }
  return small ? <circle cx={cx} cy={cy} r={3} fill="var(--chart-surface)" stroke={color} strokeWidth={1} /> : <g />;
}

/** A compared value's change, worded as the table words it. */
function CompareChange({
  measure,
  now,
  before,
  maturity,
  coverage,
}: {
  measure: ChartMeasureInfo;
  now: unknown;
  before: unknown;
  maturity: { now: boolean; before: boolean };
  coverage: Coverage | null;
}) {
  const cells = changeCells(measure, typeof now === "number" ? now : null, typeof before === "number" ? before : null, maturity, coverage);
  return <span className="pl-1 tabular-nums">({cells.map((c) => c.text).join(", ")})</span>;
}

/** The tooltip: the x value in full, its days (partial or not) and the compared ones, then every series' value. */
export function ChartTooltip({ active, label, chart, byX }: { active: boolean; label: unknown; chart: ChartData; byX: Map<string, ChartDatum> }) {
  if (!active || label === undefined || label === null) return null;
  const d = byX.get(String(label));
  if (!d) return null;
  const current = d.span ?? spanText(chart.range.start, chart.range.end);
  const compared = chart.comparison ? (d.compared ?? spanText(chart.comparison.range.start, chart.comparison.range.end)) : null;
  return (
    <div className="max-w-xs rounded border border-slate-300 bg-white p-2 text-xs text-slate-900 shadow">
      <p className="font-medium break-words">
        {d.x}
        {d.partial ? " (partial)" : ""}
      </p>
      {d.partial ? (
        <p>partial: {current}</p>
      ) : compared !== null || (d.span !== null && d.span !== d.x) ? (
        <p>{current}</p>
      ) : null}
      {compared !== null ? <p>compared with {compared}</p> : null}
      {d.comparedCoverage ? <p className="text-amber-900">{comparedCoverageText(d.comparedCoverage)}</p> : null}
      {d.maturing ? <p className="mt-1 text-amber-900">{d.maturing}</p> : null}
      <ul className="mt-1 flex flex-col gap-0.5">
        {chart.series.map((s) => {
          const v = d[s.key];
          return (
            <li key={s.key} className="flex items-center gap-1.5">
              <span
                aria-hidden="true"
                className={`inline-block size-2.5 rounded-sm ${s.dashed ? "border border-dashed" : ""}`}
                style={s.dashed ? { borderColor: chartSeriesColor(s) } : { background: chartSeriesColor(s) }}
              />
              <span>{s.name}:</span>
              <span className="ml-auto pl-2 font-medium tabular-nums">
                {formatValue(typeof v === "number" ? v : null, s.format)}
                {typeof v === "number" && valueMaturing(s, d) ? ` (${MATURING_WORD})` : ""}
              </span>
              {s.comparesTo !== null ? (
                <CompareChange
                  measure={s.axis === "right" && chart.measure2 ? chart.measure2 : chart.measure}
                  now={d[s.comparesTo]}
                  before={v}
                  maturity={{ now: d.maturing !== null, before: d.comparedMaturing }}
                  coverage={d.comparedCoverage ?? null}
                />
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

export default function ResultsChart({ chart }: { chart: ChartData }) {
  const [ref, boxWidth] = useBoxWidth<HTMLDivElement>();
  const width = boxWidth ?? 0;
  const maxLength = useMemo(() => chart.data.reduce((n, d) => Math.max(n, tickText(chart, d.x).length), 0), [chart]);
  const layout = useMemo(
    () =>
      width > 0
        ? labelLayout({
            count: chart.data.length,
            maxLength,
            width,
            categorical: chart.grain === null,
            canGoHorizontal: chart.type === "bar" && chart.grain === null,
            rightAxis: chart.measure2 !== null,
          })
        : null,
    [chart, maxLength, width],
  );
  const byX = useMemo(() => new Map(chart.data.map((d) => [d.x, d])), [chart]);

  let drawn: ReactNode = <div style={{ height: 270 }} />;
  if (layout) {
    const horizontal = layout.mode === "horizontal";
    const ids = (axis: "left" | "right") => (horizontal ? { xAxisId: axis, yAxisId: "cat" } : { xAxisId: "cat", yAxisId: axis });
    const valueAxis = (axis: "left" | "right") => {
      const f = axis === "left" ? chart.measure.format : (chart.measure2?.format ?? chart.measure.format);
      // Round ticks (1, 2, 2.5 or 5 × 10^n apart) from lib/report/charts/ticks.ts, not recharts' own, which
      // divides the data's range evenly and labels "$950K / $1.9M / $2.9M".
      const scale = chartScale(chart, axis, f, layout.valueTicks);
      const common = {
        type: "number" as const,
        tick: { fontSize: 12, fill: TICK_FILL },
        tickFormatter: (v: number) => formatTick(v, f),
        domain: scale.domain,
        ticks: scale.ticks,
        interval: 0 as const,
      };
      return horizontal ? (
        <XAxis key={axis} xAxisId={axis} orientation={axis === "left" ? "bottom" : "top"} height={24} {...common} />
      ) : (
        <YAxis key={axis} yAxisId={axis} orientation={axis} width={layout.valueAxisWidth} {...common} />
      );
    };
    // Lines put the first and last points on the plot's edges: level labels there need room to centre.
    const edge = layout.mode === "straight" && !chart.series.some((s) => s.shape === "bar") ? Math.ceil(maxLength * 4) : 0;
    const category = {
      dataKey: "x",
      type: "category" as const,
      // Every label drawn, or every step-th with the note saying so; never recharts' silent thinning.
      interval: layout.step - 1,
      tickLine: false,
    };
    drawn = (
      <ComposedChart
        width={width}
        height={layout.height}
        data={chart.data}
        layout={horizontal ? "vertical" : "horizontal"}
        margin={{ top: 8, right: chart.measure2 ? 8 : 16, bottom: 8, left: 8 }}
        accessibilityLayer
        aria-label={describeChart(chart).title}
      >
        <CartesianGrid stroke="var(--chart-grid)" horizontal={!horizontal} vertical={horizontal} {...ids("left")} />
        {horizontal ? (
          <YAxis yAxisId="cat" {...category} width={layout.axisSize} tick={(args: TickArgs) => <CategoryTick args={args} chart={chart} layout={layout} side="y" />} />
        ) : (
          <XAxis xAxisId="cat" {...category} height={layout.axisSize} padding={{ left: edge, right: edge }} tick={(args: TickArgs) => <CategoryTick args={args} chart={chart} layout={layout} side="x" />} />
        )}
        {valueAxis("left")}
        {chart.measure2 ? valueAxis("right") : null}
        <Tooltip
          axisId="cat"
          content={(p) => <ChartTooltip active={p.active} label={p.label} chart={chart} byX={byX} />}
          isAnimationActive={false}
        />
        {chart.series.map((s) => {
          const color = chartSeriesColor(s);
          if (s.shape === "bar") {
            const look = barLook(s);
            return (
              <Bar
                key={s.key}
                {...ids(s.axis)}
                dataKey={s.key}
                name={s.name}
                data-series={s.name}
                fill={color}
                fillOpacity={look.fillOpacity}
                stroke={look.dash ? color : undefined}
                strokeWidth={look.dash ? 1.5 : undefined}
                strokeDasharray={look.dash}
                stackId={stackOf(chart, s)}
                isAnimationActive={false}
              >
                {/* A maturing value's bar is pale with a dashed edge (the caption and tooltip say why). */}
                {!s.dashed && chart.maturing
                  ? chart.data.map((d) => {
                      const bar = barLook(s, d);
                      return <Cell key={d.x} fillOpacity={bar.fillOpacity} stroke={bar.dash ? color : undefined} strokeDasharray={bar.dash} />;
                    })
                  : null}
              </Bar>
            );
          }
          return (
            <Line
              key={s.key}
              {...ids(s.axis)}
              dataKey={s.key}
              name={s.name}
              data-series={s.name}
              type={chart.grain ? "monotone" : "linear"}
              stroke={color}
              strokeWidth={2}
              strokeDasharray={lineDash(s)}
              dot={(p: DotArgs) => <PointDot key={`${s.key}-${p.index}`} args={p} series={s} color={color} small={chart.data.length <= 40} />}
              connectNulls={false}
              isAnimationActive={false}
            />
          );
        })}
      </ComposedChart>
    );
  }

  return (
    <div ref={ref} className="w-full" data-label-mode={layout?.mode} data-pdf-chart={layout ? "drawn" : "measuring"}>
      {drawn}
      {layout?.note ? (
        <p className="mt-1 text-xs text-slate-700" data-testid="chart-label-note">
          {layout.note}
        </p>
      ) : null}
    </div>
  );
}
