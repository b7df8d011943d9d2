/**
 * A chart drawn as plain SVG from the same ChartData Explore's recharts chart reads (lib/charts/shape.ts):
 * lines, bars (stacked when the data says so), dashed compared series, a second measure on its own
 * right-hand axis. For dashboard tiles, which must paint in the frame their answer arrives in: no
 * library to load, no measuring pass, and it renders on the server too. Each point and bar carries
 * its exact value in a native tooltip (<title>); the caption and legend beside it say what is drawn.
 */
import type { ChartData, ChartSeries } from "@/lib/charts/shape";
import { tickText } from "@/lib/charts/shape";
import { formatCompact, formatValue } from "@/lib/metrics/format";
import { chartSeriesColor } from "./series-colors";

/** Drawn at this width until the real one is known (the server, the first render). */
const DEFAULT_WIDTH = 640;
const H = 260;
const PAD = { top: 10, right: 12, bottom: 34, left: 56 };
const TICKS = 4;

/** Round tick values covering [lo, hi] (0 included, so bars and levels read from a real base). */
export function niceTicks(lo: number, hi: number, count = TICKS): number[] {
  const min = Math.min(0, lo);
  const max = Math.max(0, hi);
  if (min === max) return [0, 1];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const first = Math.floor(min / step) * step;
  const out: number[] = [];
  for (let v = first; v <= max + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
  if (out[out.length - 1]! < max) out.push(out[out.length - 1]! + step);
  return out;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
/** The plotted measure's value at this point is still maturing (a current series on the left axis). */
const maturingAt = (s: ChartSeries, d: ChartData["data"][number]) => s.axis === "left" && s.role !== "comparison" && d.maturing !== null;

/**
 * `width`: the pixels it is drawn in (the caller measures its box), so text keeps its size on a phone
 * and on a wide screen alike; without it the drawing scales from DEFAULT_WIDTH.
 */
export function LiteChart({ chart, width }: { chart: ChartData; width?: number }) {
  const W = Math.max(280, Math.round(width ?? DEFAULT_WIDTH));
  const right = chart.series.some((s) => s.axis === "right");
  const pad = { ...PAD, right: right ? PAD.left : PAD.right };
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  const n = chart.data.length;
  const band = n > 0 ? plotW / n : plotW;
  const xAt = (i: number) => pad.left + band * (i + 0.5);

  const current = (s: ChartSeries) => chart.stacked && s.role === "current" && s.shape === "bar";
  // Each axis's extent: stacked bars add up per x, everything else stands alone.
  const extent = (axis: "left" | "right") => {
    let lo = 0;
    let hi = 0;
    chart.data.forEach((d) => {
      let stackUp = 0;
      let stackDown = 0;
      for (const s of chart.series) {
        if (s.axis !== axis) continue;
        const v = num(d[s.key]);
        if (v === null) continue;
        if (current(s)) {
          if (v >= 0) stackUp += v;
          else stackDown += v;
        } else {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
      lo = Math.min(lo, stackDown);
      hi = Math.max(hi, stackUp);
    });
    const ticks = niceTicks(lo, hi);
    const t0 = ticks[0]!;
    const t1 = ticks[ticks.length - 1]!;
    return { ticks, y: (v: number) => pad.top + plotH - ((v - t0) / (t1 - t0)) * plotH };
  };
  const axes = { left: extent("left"), right: right ? extent("right") : null };
  const yOf = (s: ChartSeries) => (s.axis === "right" && axes.right ? axes.right.y : axes.left.y);
  const formatOf = (axis: "left" | "right") => (axis === "left" ? chart.measure.format : (chart.measure2?.format ?? chart.measure.format));

  const bars = chart.series.filter((s) => s.shape === "bar");
  const sideBySide = bars.filter((s) => !current(s));
  const groups = (chart.stacked && bars.some(current) ? 1 : 0) + sideBySide.length;
  const barW = Math.max(1, Math.min(40, (band * 0.8) / Math.max(1, groups)));
  // Every label when they fit, else every step-th (the x axis of a long range); 11 px text is about
  // 6.5 px a character, with room between labels.
  const labelW = Math.max(4, ...chart.data.map((d) => tickText(chart, d.x).length)) * 6.5 + 10;
  const step = Math.max(1, Math.ceil((n * labelW) / plotW));
  // A label at either end is kept inside the drawing rather than cut by its edge.
  const anchorAt = (x: number) => (x - labelW / 2 < 0 ? "start" : x + labelW / 2 > W ? "end" : "middle");
  const labelX = (x: number) => (x - labelW / 2 < 0 ? Math.max(0, x - 6) : x + labelW / 2 > W ? Math.min(W, x + 6) : x);
  // Every step-th label, less any that would touch the one before it (the last, pulled in from the edge).
  const xLabels: { i: number; text: string }[] = [];
  let lastRight = -Infinity;
  chart.data.forEach((d, i) => {
    if (i % step !== 0) return;
    const x = labelX(xAt(i));
    const anchor = anchorAt(xAt(i));
    const left = anchor === "start" ? x : anchor === "end" ? x - labelW : x - labelW / 2;
    if (left < lastRight) return;
    xLabels.push({ i, text: tickText(chart, d.x) });
    lastRight = left + labelW;
  });

  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-label={`${chart.measure.label} by ${chart.xLabel}`} data-chart="lite">
      {axes.left.ticks.map((t) => (
        <g key={`l${t}`}>
          <line x1={pad.left} x2={W - pad.right} y1={axes.left.y(t)} y2={axes.left.y(t)} stroke="var(--chart-grid)" />
          <text x={pad.left - 6} y={axes.left.y(t)} textAnchor="end" dominantBaseline="middle" fontSize="11" fill="var(--chart-tick)">
            {formatCompact(t, formatOf("left"))}
          </text>
        </g>
      ))}
      {axes.right?.ticks.map((t) => (
        <text key={`r${t}`} x={W - pad.right + 6} y={axes.right!.y(t)} dominantBaseline="middle" fontSize="11" fill="var(--chart-tick)">
          {formatCompact(t, formatOf("right"))}
        </text>
      ))}
      {xLabels.map(({ i, text }) => (
        <text key={`x${i}`} x={labelX(xAt(i))} y={H - pad.bottom + 16} textAnchor={anchorAt(xAt(i))} fontSize="11" fill="var(--chart-tick)">
          {text}
        </text>
      ))}
      {/* Bars: the stacked current series as one column per x, then each other bar series beside it. */}
      {chart.data.map((d, i) => {
        let up = 0;
        let down = 0;
        const left = xAt(i) - (barW * groups) / 2;
        const cells = [];
        for (const s of bars) {
          const v = num(d[s.key]);
          if (v === null) continue;
          const y = yOf(s);
          const color = chartSeriesColor(s);
          let x: number;
          let from: number;
          if (current(s)) {
            x = left;
            from = v >= 0 ? up : down;
            if (v >= 0) up += v;
            else down += v;
          } else {
            x = left + barW * ((chart.stacked && bars.some(current) ? 1 : 0) + sideBySide.indexOf(s));
            from = 0;
          }
          const y0 = y(from);
          const y1 = y(from + v);
          cells.push(
            <rect
              key={`${s.key}-${i}`}
              x={x}
              y={Math.min(y0, y1)}
              width={barW}
              height={Math.max(0.5, Math.abs(y1 - y0))}
              fill={color}
              fillOpacity={s.dashed ? 0.12 : maturingAt(s, d) ? 0.4 : 1}
              stroke={s.dashed || maturingAt(s, d) ? color : undefined}
              strokeDasharray={s.dashed ? "4 3" : maturingAt(s, d) ? "3 2" : undefined}
            >
              <title>{`${d.x} · ${s.name}: ${formatValue(v, s.format)}${maturingAt(s, d) ? " (maturing)" : ""}`}</title>
            </rect>,
          );
        }
        return <g key={`b${i}`}>{cells}</g>;
      })}
      {chart.series
        .filter((s) => s.shape === "line")
        .map((s) => {
          const y = yOf(s);
          const color = chartSeriesColor(s);
          // A null breaks the line: no value is drawn where there is none.
          const runs: string[] = [];
          let run: string[] = [];
          chart.data.forEach((d, i) => {
            const v = num(d[s.key]);
            if (v === null) {
              if (run.length) runs.push(run.join(" "));
              run = [];
            } else run.push(`${xAt(i).toFixed(1)},${y(v).toFixed(1)}`);
          });
          if (run.length) runs.push(run.join(" "));
          return (
            <g key={s.key} data-series={s.name}>
              {runs.map((points, k) => (
                <polyline key={k} points={points} fill="none" stroke={color} strokeWidth={2} strokeDasharray={s.dashed ? "6 4" : undefined} />
              ))}
              {chart.data.map((d, i) => {
                const v = num(d[s.key]);
                if (v === null) return null;
                // A value still maturing is a hollow ring, as Explore draws it (the caption says why).
                const ring = maturingAt(s, d);
                return (
                  <circle key={i} cx={xAt(i)} cy={y(v)} r={ring ? 4 : n <= 40 ? 2.5 : 1.5} fill={ring ? "var(--chart-surface)" : color} stroke={ring ? color : undefined} strokeWidth={ring ? 2 : undefined}>
                    <title>{`${d.x} · ${s.name}: ${formatValue(v, s.format)}${ring ? " (maturing)" : ""}`}</title>
                  </circle>
                );
              })}
            </g>
          );
        })}
      <line x1={pad.left} x2={W - pad.right} y1={axes.left.y(0)} y2={axes.left.y(0)} stroke="var(--chart-axis)" />
    </svg>
  );
}
