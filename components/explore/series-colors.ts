/** Ten distinguishable series colours (Tableau 10, darkened for contrast on white) and grey for "Other". */
export const SERIES_COLORS = ["#2f5f8f", "#c25e00", "#b8282b", "#2f7f7a", "#3e7f30", "#8a6d00", "#7f4c76", "#c2185b", "#6b4a32", "#5b6770"] as const;
export const OTHER_COLOR = "#94a3b8";

export function seriesColor(index: number, isOther: boolean): string {
  return isOther ? OTHER_COLOR : SERIES_COLORS[index % SERIES_COLORS.length]!;
}
