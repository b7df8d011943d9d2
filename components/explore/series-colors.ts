import type { ChartSeries } from "@/lib/charts/shape";

/** Ten distinguishable series colours (Tableau 10, darkened for contrast on white) and grey for "Other". */
export const SERIES_COLORS = ["#2f5f8f", "#c25e00", "#b8282b", "#2f7f7a", "#3e7f30", "#8a6d00", "#7f4c76", "#c2185b", "#6b4a32", "#5b6770"] as const;
export const OTHER_COLOR = "#94a3b8";
/** The total of split series (and its comparison): near-black, unlike any series colour. */
export const TOTAL_COLOR = "#1e293b";
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
