/**
 * What a report URL asks for that the page cannot apply exactly. A link is never "repaired" in
 * silence: each problem names its parameter and why, the page runs nothing, and the nearest valid
 * report (what is left once every problem is taken out or brought within its limit) is offered as
 * one click. See docs/report-urls.md.
 */
import { dimensionsFor, type DimensionDef } from "@/lib/contract/dimensions";
import { LIMITS } from "@/lib/contract/limits";
import type { Operation } from "@/lib/contract/operations";
import { addDays, daysBetween, isCalendarDate } from "@/lib/contract/dates";
import { FILTER_PREFIX, type UrlProblem } from "./encoding";

export type { UrlProblem } from "./encoding";
import { filterValueHint, parseFilterValue, type FilterValue } from "./filters";
import { MAX_RANGE_DAYS, isRangePreset, presetLabel, type RangePreset, type RangeSelection } from "./range";
import { overCapMessage, quote } from "./words";

// The words forms share with these checks have a module of their own (./words.ts, re-exported here).
export { quote } from "./words";


const RANGE_RE = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/;

/**
 * A range parameter checked against today and the cap. Returns the range to use (the one asked for
 * when it is valid, else the nearest valid one) and the problem, if any. `today` is the reporting
 * time zone's date; without it (a saved report checked on its own) ranges are not checked against it.
 */
export function checkRange(
  raw: string,
  fallback: RangePreset,
  allowed: readonly RangePreset[],
  today?: string,
): { range: RangeSelection; problem: UrlProblem | null } {
  const problem = (message: string, range: RangeSelection) => ({ range, problem: { param: "range", message } });
  if (isRangePreset(raw)) {
    if (allowed.includes(raw)) return { range: { preset: raw }, problem: null };
    return problem(`${presetLabel(raw)} is not a period this page offers.`, { preset: fallback });
  }
  const m = RANGE_RE.exec(raw);
  if (!m) return problem(`${quote(raw)} is neither a period nor a range YYYY-MM-DD..YYYY-MM-DD.`, { preset: fallback });
  let start = m[1]!;
  let end = m[2]!;
  for (const d of [start, end]) if (!isCalendarDate(d)) return problem(`${d} is not a calendar date.`, { preset: fallback });
  const messages: string[] = [];
  if (end < start) {
    messages.push(`The range ends (${end}) before it starts (${start}).`);
    [start, end] = [end, start];
  }
  if (today !== undefined && end > today) {
    messages.push(`The range ends after today (${today}), so it would count days that have no data yet.`);
    const days = daysBetween(start, end);
    end = today;
    if (start > today) start = addDays(today, -days);
  }
  if (daysBetween(start, end) > MAX_RANGE_DAYS) {
    messages.push(overCapMessage(start, end));
    start = addDays(end, -MAX_RANGE_DAYS);
  }
  if (messages.length > 0) return problem(messages.join(" "), { start, end });
  return { range: { start, end }, problem: null };
}

/**
 * The `f.<dimension>` parameters checked against the operation's dimensions: unknown dimensions,
 * values that are not of the dimension (an enum value not in its list, "12x" for an id), empty lists
 * and lists over the contract's limit are problems. Returns the filters that can be applied.
 */
export function checkFilters(op: Operation, raw: Record<string, string[]>): { filters: Record<string, FilterValue[]>; problems: UrlProblem[] } {
  const dims = new Map<string, DimensionDef>(dimensionsFor(op).map((d) => [d.name, d]));
  const filters: Record<string, FilterValue[]> = {};
  const problems: UrlProblem[] = [];
  for (const [name, values] of Object.entries(raw)) {
    const param = `${FILTER_PREFIX}${name}`;
    const d = dims.get(name);
    if (!d) {
      problems.push({ param, message: `${quote(name)} is not a dimension of this report, so it cannot be filtered on.` });
      continue;
    }
    const kept: FilterValue[] = [];
    const bad: string[] = [];
    for (const v of values) {
      const t = parseFilterValue(d, v);
      if (t === undefined) bad.push(v);
      else kept.push(t);
    }
    if (values.length === 0) problems.push({ param, message: `The ${d.label} filter has no value.` });
    if (bad.length > 0) {
      const shown = bad.slice(0, 3).map((b) => quote(b)).join(", ") + (bad.length > 3 ? ` and ${bad.length - 3} more` : "");
      problems.push({ param, message: `${shown} ${bad.length === 1 ? "is" : "are"} not ${filterValueHint(d)} (${d.label}).` });
    }
    if (new Set(kept).size > LIMITS.maxFilterValues) {
      problems.push({ param, message: `The ${d.label} filter has ${kept.length} values; at most ${LIMITS.maxFilterValues}.` });
    }
    if (kept.length > 0) filters[name] = kept.slice(0, LIMITS.maxFilterValues);
  }
  return { filters, problems };
}

/** Parameters that are neither in `known` nor filters. */
export function unknownParams(keys: Iterable<string>, known: readonly string[]): UrlProblem[] {
  const out: UrlProblem[] = [];
  for (const k of new Set(keys)) {
    if (known.includes(k) || k.startsWith(FILTER_PREFIX)) continue;
    out.push({ param: k, message: `${quote(k)} is not a parameter of this page.` });
  }
  return out;
}

/** "“x”, “y” are not …" for list items outside a set; null when every item is in it. */
export function unknownItems(param: string, items: readonly string[], known: ReadonlySet<string>, what: string): UrlProblem | null {
  const bad = [...new Set(items.filter((i) => !known.has(i)))];
  if (bad.length === 0) return null;
  const shown = bad.slice(0, 3).map((b) => quote(b)).join(", ") + (bad.length > 3 ? ` and ${bad.length - 3} more` : "");
  return { param, message: `${shown} ${bad.length === 1 ? "is" : "are"} not ${what}.` };
}
