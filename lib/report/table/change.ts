/**
 * A measure's change between a period and the one it is compared with, as the table's cells: the
 * difference in points for a rate; for a sum (or an amount ratio) the difference and the % change;
 * each signed, with its verdict in words beside the sign (never instead of it), and no verdict where
 * the two periods are not alike (a side still maturing, compared days only partly covered by data).
 * The table, the chart's tooltip and the alerts all word a change through here.
 */
import { coverageVerdictWord, partlyCovered, partlyCoveredNote, type Coverage } from "@/lib/report/periods/coverage";
import { changeDirection, formatChange, formatValue, round2, type ValueFormat } from "@/lib/report/metrics/format";
import type { Measure } from "@/lib/report/metrics/kpis";
import { MATURING_WORD, measureMaturity, unequalMaturityNote } from "@/lib/report/metrics/maturity";

/** What a change's words depend on: the measure's unit and which way is good news. */
type ChangeMeasure = Pick<Measure, "format" | "better"> & Partial<Pick<Measure, "numerator" | "denominator">>;

/** Which sides of a change are still maturing (their late events still arriving). */
interface ChangeMaturity {
  now: boolean;
  before: boolean;
}

/** A change as a table cell (the table's TableCell holds it as it is). */
export interface ChangeCell {
  value: number | null;
  text: string;
  tone?: "good" | "bad";
  note?: string;
  maturing?: true;
  coverage?: Coverage;
}

/** A rate's change is in percentage points; a sum's (and an amount ratio's) is a difference and a % change. */
export const changesInPoints = (m: ChangeMeasure) => m.format === "percent";

const VERDICT = { good: "better", bad: "worse" } as const;

/** Good or bad news for the measure, judged on the change as shown (a change that rounds to nothing is neither). */
function toneOf(m: ChangeMeasure, delta: number, shownAs: ValueFormat): ChangeCell["tone"] {
  const direction = changeDirection(delta, shownAs);
  if (m.better === "neutral" || direction === 0) return undefined;
  return (direction > 0) === (m.better === "higher") ? "good" : "bad";
}

/**
 * A change cell: its signed text, and the verdict in words beside the sign (never instead of it).
 * Between periods of different maturity, or against a partly covered comparison, there is no
 * verdict: the sign stays, the word and the note say why.
 */
function changeCell(m: ChangeMeasure, value: number, format: ValueFormat, unjudged: string | null, coverage: Coverage | null): ChangeCell {
  const partly = partlyCovered(coverage) ? coverage : null;
  if (unjudged || partly) {
    const words = [unjudged ? MATURING_WORD : null, partly ? coverageVerdictWord(partly) : null].filter((w) => w !== null).join("; ");
    const note = [partly ? partlyCoveredNote(partly) : null, unjudged].filter((n) => n !== null).join(" ");
    return { value, text: `${formatChange(value, format)} (${words})`, note, ...(unjudged ? { maturing: true as const } : {}), ...(partly ? { coverage: partly } : {}) };
  }
  const tone = toneOf(m, value, format);
  const text = `${formatChange(value, format)}${tone ? ` (${VERDICT[tone]})` : ""}`;
  return tone ? { value, text, tone } : { value, text };
}

/** Why a change is not judged (either side still maturing: no two periods of different ages are equally complete), or null. */
function unjudgedReason(m: ChangeMeasure, maturity: ChangeMaturity | undefined): string | null {
  if (!maturity || (!maturity.now && !maturity.before) || !m.numerator || m.denominator === undefined) return null;
  const mm = measureMaturity({ numerator: m.numerator, denominator: m.denominator });
  return mm ? unequalMaturityNote(mm) : null;
}

/**
 * The change cells of one measure: the difference in points for a rate; for a sum (or an amount
 * ratio) the difference and the % change. `coverage`: how much of the compared days hold data (none
 * known: judged as before).
 */
export function changeCells(m: ChangeMeasure, now: number | null, before: number | null, maturity?: ChangeMaturity, coverage?: Coverage | null): ChangeCell[] {
  if (now === null || before === null) {
    const none: ChangeCell = { value: null, text: formatValue(null, "count"), note: "A rate of nothing on one side: no change to show." };
    return changesInPoints(m) ? [none] : [none, none];
  }
  // Amounts were summed in cents; their difference is rounded to cents once, here.
  const delta = m.format === "currency" ? round2(now - before) : now - before;
  const unjudged = unjudgedReason(m, maturity);
  const cov = coverage ?? null;
  if (changesInPoints(m)) return [changeCell(m, delta, "points", unjudged, cov)];
  const diff = changeCell(m, delta, m.format, unjudged, cov);
  if (before === 0) return [diff, { value: null, text: formatValue(null, "percent"), note: "Nothing in the comparison to measure a % change against." }];
  return [diff, changeCell(m, delta / Math.abs(before), "percent", unjudged, cov)];
}
