/**
 * Rates that are still maturing. A chargeback, refund or alert is dated (in the attempt-dated
 * metrics) by the sale it refers to, but it arrives days or months after that sale: a chargeback up
 * to about 120 days later (the card networks' dispute windows, SPEC.md "0 to 120 days later"),
 * refunds and alerts mostly within 60. So the rate of a recent period is incomplete and rises as its
 * events arrive; compared with an older period it looks better than it is.
 *
 * A measure matures when its numerator counts those events dated by the attempt (or, in cohorts, by
 * the customer's initial date): a rate (chargebacks ÷ sales), and as much a sum of them (the
 * chargebacks of the last 30 days, net revenue less those chargebacks), which is just as incomplete.
 * Which ones is read from the catalog's `source` and `dateBasis`, never listed by hand. A period is maturing when its last day is
 * later than today − the window (today in the reporting time zone): a period whose last day is
 * exactly the window old is mature. The event-dated rates (events by the day they arrived ÷ the same
 * sales) never mature: nothing more arrives for a past day.
 */
import { addDays, daysBetween } from "@/lib/contract/dates";
import { MATURITY_WINDOW_DAYS, METRICS, getMetric, type LateSource } from "@/lib/contract/catalog";
import { KPIS, type KpiDef, type Measure, type Term } from "./kpis";


const SOURCE_WORDS: Readonly<Record<LateSource, string>> = { chargebacks: "Chargebacks", refunds: "Refunds", alerts: "Alerts" };
const SALE_DATED = new Set(["attempt", "initial"]);

/** The word a maturing value carries beside it (table, tile, chart, e-mail). */
export const MATURING_WORD = "maturing";
/** The export's last column when a shown rate can mature (present whatever today is, so the file's columns stay stable). */
export const MATURING_COLUMN = "Maturing";

export interface Maturity {
  /** The longest window of the late facts the measure counts. */
  window: number;
  sources: LateSource[];
  /** Which way the value moves as its late facts arrive: added (a count, a rate) or taken away (net revenue). */
  moves: "rise" | "fall" | "change";
}

function lateSource(metric: string): LateSource | null {
  const m = getMetric(metric);
  if (!m || m.source === "attempts" || !SALE_DATED.has(m.dateBasis)) return null;
  return m.source;
}

/** How a measure matures, or null when it does not (attempts and revenue, an event-dated count or rate). */
export function measureMaturity(m: Pick<Measure, "numerator" | "denominator">): Maturity | null {
  const late = m.numerator.filter((t) => lateSource(t.metric) !== null);
  if (late.length === 0) return null;
  const sources = [...new Set(late.map((t) => lateSource(t.metric)!))];
  const moves = late.every((t) => t.sign > 0) ? "rise" : late.every((t) => t.sign < 0) ? "fall" : "change";
  return { window: Math.max(...sources.map((s) => MATURITY_WINDOW_DAYS[s])), sources, moves };
}

/** "will likely rise": how a maturing value is expected to move as its late facts arrive. */
export const likelyMove = (maturity: Pick<Maturity, "moves">) => (maturity.moves === "change" ? "will likely change" : `will likely ${maturity.moves}`);

/** The last day of a mature period: periods ending after it are still maturing. */
export function lastMatureDay(today: string, window: number): string {
  return addDays(today, -window);
}

/** Whether a period ending on `lastDay` is still maturing for the measure, as of `today`. */
export function isMaturing(maturity: Maturity | null, lastDay: string | null | undefined, today: string | null | undefined): boolean {
  if (!maturity || !lastDay || !today) return false;
  return lastDay > lastMatureDay(today, maturity.window);
}

const words = (sources: readonly LateSource[]) => sources.map((s, i) => (i === 0 ? SOURCE_WORDS[s] : SOURCE_WORDS[s].toLowerCase())).join(" and ");

/**
 * Notes already written, by what they say: the maturing cells of a long table (every row of a recent
 * breakdown, a few hundred characters each) share one string per period end instead of a copy each.
 */
const notes = new Map<string, string>();
const NOTES_KEPT = 4_096;

/** The hover note of a maturing value: why it is incomplete and what to compare instead. */
export function maturingNote(maturity: Maturity, lastDay: string, today: string): string {
  const move = likelyMove(maturity);
  const key = `${maturity.window}|${maturity.sources.join(",")}|${move}|${lastDay}|${today}`;
  const kept = notes.get(key);
  if (kept !== undefined) return kept;
  const age = Math.max(0, daysBetween(lastDay, today));
  const ago = age === 0 ? "ends today" : `ended ${age} day${age === 1 ? "" : "s"} ago`;
  const note =
    `${words(maturity.sources)} on sales this recent are still arriving: they come up to ${maturity.window} days after the sale, ` +
    `and this period ${ago} (mature once it ends on or before ${lastMatureDay(today, maturity.window)}). ` +
    `This value ${move} as they arrive; the event-dated measure counts them by the day they arrived and is complete.`;
  if (notes.size >= NOTES_KEPT) notes.clear();
  notes.set(key, note);
  return note;
}

/** Why a change between periods of different maturity has no better or worse. */
export function unequalMaturityNote(maturity: Maturity): string {
  return (
    `No better or worse: ${words(maturity.sources).toLowerCase()} on the more recent sales are still arriving ` +
    `(up to ${maturity.window} days after the sale), so the two sides are not equally complete. Compare the event-dated rates instead.`
  );
}

// ---------------------------------------------------------------------------------------------
// The event-dated twin of a maturing KPI

/** The catalog metric counting the same facts by the day they arrived (cb_count → cb_count_by_cb_date). */
export function eventDatedMetric(metric: string): string | null {
  const m = getMetric(metric);
  if (!m || lateSource(metric) === null) return null;
  const twin = METRICS.find((t) => t.source === m.source && t.type === m.type && !SALE_DATED.has(t.dateBasis));
  return twin?.name ?? null;
}

type Terms = readonly { readonly measure: string; readonly sign: Term["sign"] }[];
const sameTerms = (a: Terms | null, b: Terms | null) =>
  a === b || (a !== null && b !== null && a.length === b.length && a.every((t, i) => t.measure === b[i]?.measure && t.sign === b[i]?.sign));

/**
 * The registry's event-dated KPI beside a maturing one: the same denominator, the numerator's events
 * counted by the day they arrived (cb_rate_count → cb_rate_count_by_cb_date). Derived from the
 * catalog, so a new pair needs only its KPI in the registry.
 */
export function eventDatedKpi(kpi: KpiDef): KpiDef | null {
  const numerator = kpi.numerator.map((t) => ({ ...t, measure: eventDatedMetric(t.measure) ?? t.measure }));
  if (numerator.every((t, i) => t.measure === kpi.numerator[i]?.measure)) return null;
  return KPIS.find((k) => k.id !== kpi.id && sameTerms(k.numerator, numerator) && sameTerms(k.denominator, kpi.denominator)) ?? null;
}

/** KPI ids with their event-dated twin: `{ cb_rate_count: "cb_rate_count_by_cb_date", … }`. */
export const EVENT_DATED_KPIS: Readonly<Record<string, string>> = Object.fromEntries(
  KPIS.flatMap((k) => {
    const twin = eventDatedKpi(k);
    return twin ? [[k.id, twin.id] as const] : [];
  }),
);

/** A report's KPI ids with every maturing one swapped for its event-dated twin (order kept, no duplicates). */
export function withEventDatedKpis(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => EVENT_DATED_KPIS[id] ?? id))];
}

/** The same swapped back: each event-dated KPI for the attempt-dated one it stands beside. */
export function withAttemptDatedKpis(ids: readonly string[]): string[] {
  const back = new Map(Object.entries(EVENT_DATED_KPIS).map(([a, e]) => [e, a] as const));
  return [...new Set(ids.map((id) => back.get(id) ?? id))];
}

/** What a report names its measures by: its KPI columns, and the measure its sort, chart and pivot point at. */
export interface MeasureChoices {
  kpis: string[];
  sort: { key: string; dir: "asc" | "desc" } | null;
  pivotMeasure: string | null;
  chartMeasure: string | null;
  chartMeasure2: string | null;
}

/** A report's choices with its KPIs swapped one way, everything that pointed at a swapped KPI following it. */
export function swapKpis<T extends MeasureChoices>(s: T, swap: (ids: readonly string[]) => string[]): T {
  const one = (id: string | null) => (id === null ? null : (swap([id])[0] ?? id));
  return {
    ...s,
    kpis: swap(s.kpis),
    // A sort may name a comparison column ("cb_rate_count~chg"): its measure is swapped, its part kept.
    sort: s.sort ? { ...s.sort, key: s.sort.key.replace(/^[^~]+/, (id) => one(id) ?? id) } : null,
    pivotMeasure: one(s.pivotMeasure),
    chartMeasure: one(s.chartMeasure),
    chartMeasure2: one(s.chartMeasure2),
  };
}

/** What a report or an e-mail says once under numbers carrying the word. */
export const MATURING_LEGEND =
  `“(${MATURING_WORD})”: a value whose sales are too recent for all their chargebacks, refunds or alerts to have arrived; it is not final, and a change it makes is not called better or worse. ` +
  "The event-dated measures (by the day the events arrived) are complete for any past period.";

/** Whether a text carries the maturing word (an e-mail's numbers). */
export const saysMaturing = (text: string) => text.includes(`(${MATURING_WORD})`);

/** What the swap changes, in words, for the page beside the button. */
export const EVENT_DATED_EXPLANATION =
  "An attempt-dated rate counts each chargeback, refund or alert on the day of the sale it refers to, so a recent period's rate keeps rising as they arrive. " +
  "The event-dated rate counts them on the day they arrived, over the same period's sales (how the card networks measure a month): nothing more arrives for a past day, so periods of any age compare fairly. " +
  "It is not the same quantity: the events it counts come partly from earlier sales.";
