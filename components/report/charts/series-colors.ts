import type { ChartSeries } from "@/lib/report/charts/shape";

/** Ten distinguishable series colours and grey for "Other"; their values, per colour scheme, are in app/globals.css. */
export const SERIES_COLORS = [
  "var(--chart-series-1)",
  "var(--chart-series-2)",
  "var(--chart-series-3)",
  "var(--chart-series-4)",
  "var(--chart-series-5)",
  "var(--chart-series-6)",
  "var(--chart-series-7)",
  "var(--chart-series-8)",
  "var(--chart-series-9)",
  "var(--chart-series-10)",
] as const;
export const OTHER_COLOR = "var(--chart-other)";
/** The total of split series (and its comparison): near-black, unlike any series colour. */
export const TOTAL_COLOR = "var(--chart-total)";
/** The second measure: the second colour (the first measure is then one series in the first). */
export const MEASURE2_COLOR = SERIES_COLORS[1];

export function seriesColor(index: number, isOther: boolean): string {
  return isOther ? OTHER_COLOR : SERIES_COLORS[index % SERIES_COLORS.length]!;
}

/** The colour of any chart series: a comparison takes the colour of what it is compared with. */
export function chartSeriesColor(s: Pick<ChartSeries, "role" | "index" | "isOther" | "comparesTo">): string {
  switch (s.role) {
    case "current":
      return seriesColor(s.index, s.isOther);
    case "total":
      return TOTAL_COLOR;
    case "comparison":
      return s.comparesTo === "T" ? TOTAL_COLOR : seriesColor(0, false);
    case "measure2":
      return MEASURE2_COLOR;
  }
}
