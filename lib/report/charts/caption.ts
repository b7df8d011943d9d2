/**
 * The figure's caption: what is drawn, in words (the chart's text alternative). It names the measure
 * or measures with their axis units, what the x axis counts, the series split (and what was folded
 * into "Other"), the comparison and how it is drawn, partial periods and anything left out.
 */
import { coverageWords } from "@/lib/report/periods/coverage";
import { getDimension } from "@/lib/contract/dimensions";
import { DISPLAY_CURRENCY, type ValueFormat } from "@/lib/report/metrics/format";
import type { TimeGrain } from "@/lib/report/periods/grain";
import { spanText, type ChartData } from "./shape";

export const UNIT_WORDS: Readonly<Record<ValueFormat, string>> = {
  currency: DISPLAY_CURRENCY,
  count: "count",
  percent: "%",
  points: "percentage points",
};

const GRAIN_NOUNS: Readonly<Record<TimeGrain, string>> = { day: "day", week: "ISO week", month: "month", quarter: "quarter", year: "year" };

const lower = (dimension: string) => (getDimension(dimension)?.label ?? dimension).toLowerCase();

export interface ChartCaption {
  /** One line: the measure(s), their units, and the x axis. */
  title: string;
  /** Sentences on the split, the comparison, partial periods and what was folded or left out. */
  notes: string[];
}

export function describeChart(chart: ChartData): ChartCaption {
  const xNoun = chart.grain ? GRAIN_NOUNS[chart.grain] : chart.xLabel.toLowerCase();
  const shape = chart.type === "bar" ? "bars" : "line";
  const m = chart.measure;
  const m2 = chart.measure2;
  const title = m2
    ? `${m.label} (${UNIT_WORDS[m.format]}, ${shape}, left axis) and ${m2.label} (${UNIT_WORDS[m2.format]}, line, right axis) by ${xNoun}`
    : `${m.label} (${UNIT_WORDS[m.format]}) by ${xNoun}`;

  const notes: string[] = [];
  if (chart.seriesDimension) {
    const dim = lower(chart.seriesDimension);
    notes.push(
      `One ${chart.type === "bar" ? (chart.stacked ? "stacked bar segment" : "bar") : "line"} per ${dim}` +
        (chart.foldedSeries > 0 ? `: the ${chart.series.filter((s) => s.role === "current" && !s.isOther).length} largest, the other ${chart.foldedSeries} summed as Other.` : "."),
    );
  }
  if (chart.unsplitDimension) {
    notes.push(`Not split by ${lower(chart.unsplitDimension)} while a second measure is drawn: each ${xNoun} shows its total.`);
  }
  if (chart.comparison) {
    const c = chart.comparison;
    // The dates once: a custom comparison's name is already its range.
    const span = spanText(c.range.start, c.range.end);
    const when = c.name === span ? `the comparison range ${span}` : `the ${c.name} (${span})`;
    const what = c.scope === "total" && chart.seriesDimension ? `the total over every ${lower(chart.seriesDimension)}` : m.label;
    notes.push(
      `Dashed: ${what} in ${when}, each ${chart.grain ? xNoun : "value"} beside the current one` +
        (c.scope === "total" && chart.seriesDimension
          ? `; compared as a total only (a dashed series per ${lower(chart.seriesDimension)} would double the lines)${chart.stacked ? ", beside each stack" : ", with the current total drawn solid"}`
          : "") +
        (m2 ? `; ${m2.label} is not compared` : "") +
        ".",
    );
    // The dashed line over days with no data would read as a collapse, not as missing data.
    if (c.coverage) notes.push(`The compared period has ${coverageWords(c.coverage)}: its dashed line is at nothing on the days without, and no change there is called better or worse.`);
  }
  if (chart.partial.length > 0) {
    notes.push(`* Partial ${xNoun}: ${chart.partial.map((p) => `${p.label} covers only ${spanText(p.from, p.to)}`).join("; ")}.`);
  }
  if (chart.maturing) {
    const labels = chart.maturing.labels;
    notes.push(
      `${m.label} is still maturing for ${labels.length === 1 ? labels[0] : `${labels.length} points (${labels[0]} to ${labels[labels.length - 1]})`}, marked with a hollow ring: ` +
        `sales under ${chart.maturing.window} days old are still collecting their late events, so those values are not final.`,
    );
  }
  if (chart.foldedCategories > 0) {
    notes.push(`The ${chart.foldedCategories} smallest ${chart.xLabel.toLowerCase()} values are summed as one Other bar.`);
  }
  if (chart.unaligned.length > 0) {
    const n = chart.unaligned.length;
    notes.push(`${n === 1 ? "A compared day" : `${n} compared days`} (${chart.unaligned.join(", ")}) stand${n === 1 ? "s" : ""} beside no day of this range and ${n === 1 ? "is" : "are"} not drawn.`);
  }
  return { title, notes };
}
