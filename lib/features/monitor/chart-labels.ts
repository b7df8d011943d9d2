/** Where the Monitor's trend chart puts its thresholds' labels. */

export const TREND_CHART_HEIGHT = 220;
/** The plot's height: the chart less its margins (8 + 8) and the date axis (30). */
const PLOT_HEIGHT = TREND_CHART_HEIGHT - 16 - 30;
/** A label's height (11 px text) with a little room. */
const LABEL_HEIGHT = 14;
/** Recharts' own distance between a line and its label. */
const LINE_GAP = 5;

/**
 * How far above its line (px) each threshold's label is drawn, by position in `ratios` (ascending;
 * `top` is the axis's maximum): just above, unless that would put it over the label below, then
 * stacked on top of that one. Thresholds of 1 %, 1.5 % and 3 % under a ratio of 134 % are a few
 * pixels apart, and their labels were drawn over each other. Above the line, a label under a low
 * threshold stays clear of the date axis.
 */
export function labelOffsets(ratios: readonly number[], top: number): number[] {
  let below = -Infinity; // the previous label's baseline, px above the axis
  return ratios.map((r) => {
    const line = top > 0 ? (r / top) * PLOT_HEIGHT : 0;
    const offset = Math.max(LINE_GAP, below + LABEL_HEIGHT - line);
    below = line + offset;
    return offset;
  });
}
