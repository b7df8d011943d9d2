"use client";
/**
 * The only module that imports recharts; the chart panel loads it with next/dynamic so the library
 * is not part of any page's first load.
 */
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartData } from "@/lib/charts/shape";
import { formatCompact, formatValue } from "@/lib/metrics/format";
import { seriesColor } from "./series-colors";

export default function ResultsChart({ chart }: { chart: ChartData }) {
  const f = chart.measure.format;
  const common = {
    data: chart.data,
    margin: { top: 8, right: 16, bottom: 8, left: 8 },
    accessibilityLayer: true,
  };
  const axes = (
    <>
      <CartesianGrid stroke="#e2e8f0" vertical={false} />
      <XAxis dataKey="x" tick={{ fontSize: 12, fill: "#334155" }} minTickGap={16} interval="preserveStartEnd" />
      <YAxis tick={{ fontSize: 12, fill: "#334155" }} tickFormatter={(v: number) => formatCompact(v, f)} width={64} />
      <Tooltip
        formatter={(v) => formatValue(typeof v === "number" ? v : null, f)}
        contentStyle={{ fontSize: 12 }}
        isAnimationActive={false}
      />
    </>
  );
  return (
    <ResponsiveContainer width="100%" height="100%">
      {chart.type === "line" ? (
        <LineChart {...common}>
          {axes}
          {chart.series.map((s, i) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.name}
              data-series={s.name}
              type="monotone"
              stroke={seriesColor(i, s.isOther)}
              strokeWidth={2}
              dot={chart.data.length <= 40}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      ) : (
        <BarChart {...common}>
          {axes}
          {chart.series.map((s, i) => (
            <Bar
              key={s.key}
              dataKey={s.key}
              name={s.name}
              data-series={s.name}
              fill={seriesColor(i, s.isOther)}
              stackId={chart.stacked ? "stack" : undefined}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      )}
    </ResponsiveContainer>
  );
}
