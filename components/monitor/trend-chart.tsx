"use client";
/** The daily trend of a programme's ratio for one MID, with the thresholds in force drawn as lines. */
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { niceScale, formatTick } from "@/lib/report/charts/ticks";
import { formatValue } from "@/lib/report/metrics/format";
import type { DrillAnswer } from "@/lib/features/monitor/drill";
import { labelOffsets, TREND_CHART_HEIGHT as HEIGHT } from "@/lib/features/monitor/chart-labels";
import { thresholdLabel } from "@/lib/features/monitor/words";

type Ok = Extract<DrillAnswer, { kind: "ok" }>;

/** `noun`: what the programme counts ("chargebacks"), named beside each threshold's minimum count. */
export default function TrendChart({ trend, thresholds, noun, width }: { trend: Ok["trend"]; thresholds: Ok["thresholds"]; noun: string; width: number }) {
  // Room above the highest line for its label, then up to a round tick (lib/report/charts/ticks.ts).
  const scale = niceScale(0, Math.max(...thresholds.map((t) => t.ratio), ...trend.map((t) => t.ratio ?? 0)) * 1.15, 6);
  const top = scale.domain[1];
  const lines = [...thresholds].sort((a, b) => a.ratio - b.ratio);
  const offsets = labelOffsets(
    lines.map((t) => t.ratio),
    top,
  );
  return (
    <LineChart width={width} height={HEIGHT} data={trend} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
      <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
      <XAxis dataKey="date" tickFormatter={(d: string) => d.slice(8)} interval="preserveStartEnd" tick={{ fontSize: 12 }} />
      <YAxis domain={scale.domain} ticks={scale.ticks} interval={0} tickFormatter={(v: number) => formatTick(v, "percent")} width={52} tick={{ fontSize: 12 }} />
      <Tooltip
        formatter={(v) => formatValue(typeof v === "number" ? v : null, "percent")}
        labelFormatter={(d) => {
          const row = trend.find((t) => t.date === d);
          return row ? `${String(d)}: ${formatValue(row.numerator, "count")} ÷ ${formatValue(row.denominator, "count")}` : String(d);
        }}
      />
      {lines.map((t, i) => (
        <ReferenceLine
          key={`${t.level}-${t.ratio}`}
          y={t.ratio}
          stroke="var(--chart-threshold)"
          strokeDasharray="6 4"
          label={{ value: thresholdLabel(t, noun), position: "insideBottomRight", offset: offsets[i], fontSize: 11, fill: "var(--chart-threshold-label)" }}
        />
      ))}
      <Line type="linear" dataKey="ratio" name="Ratio to date" stroke="var(--chart-ratio)" strokeWidth={2} dot={false} isAnimationActive={false} connectNulls />
    </LineChart>
  );
}
