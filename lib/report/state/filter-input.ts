/**
 * A filter's values as typed or pasted into its row. Apart from ./filters.ts (the canonical form,
 * which the report pages check links with on first paint), as only a filter's row, loaded with the
 * first filter, uses these.
 */
import type { DimensionDef } from "@/lib/contract/dimensions";
import { LIMITS } from "@/lib/contract/limits";
import { filterValueHint, normalizeText, parseFilterValue, type FilterValue } from "./filters";

/** Why one typed token is not a value of the dimension (never quoting more than a short prefix). */
export function rejectReason(d: DimensionDef, token: string): string {
  if (d.type === "string" && !d.values && normalizeText(token).length > LIMITS.maxStringFilterLength) {
    return `longer than ${LIMITS.maxStringFilterLength} characters (it has ${normalizeText(token).length.toLocaleString("en-US")})`;
  }
  if (d.type === "integer") return /^-\d+$/.test(token.trim()) ? `negative: a ${d.label} is a whole number of 0 or more` : "not a whole number";
  return `not ${filterValueHint(d)}`;
}

/** A value recent answers held, with the name that came with an id (a gateway's alias). */
export interface KnownValue {
  value: FilterValue;
  label: string | null;
}

/** What the dashboard has seen of a dimension's values (GET /api/reports/suggestions). */
export interface KnownValues {
  values: KnownValue[];
  /** Answers that held the dimension. */
  reports: number;
  /** Every value those answers held is in `values` (none was dropped to keep the list bounded). */
  complete: boolean;
}

export interface FilterInput {
  /** New values, in the order typed. */
  added: FilterValue[];
  /** Tokens that are not values of the dimension, each with why. */
  rejected: { token: string; reason: string }[];
  /** Values typed that the filter already holds (or typed twice). */
  duplicates: number;
  /** Valid values left out because the filter would hold more than the contract allows. */
  overLimit: number;
  /** Text typed in another case than a value recent reports hold, added in that value's spelling. */
  respelled: { typed: string; as: string }[];
}

/**
 * What typing or pasting `text` into a filter adds. Numbers and dates are lists separated by commas,
 * semicolons, spaces or new lines (`12, 13` is two values); free text is one value per line (it may
 * hold commas). Nothing is dropped in silence: every token is added, rejected with a reason, counted
 * as a duplicate, or counted as over the limit. Free text is sent exactly as its chip shows it
 * (white space normalized); typed in another case than a value in `known`, it takes that value's
 * spelling, since the reports match text exactly.
 */
export function parseFilterInput(d: DimensionDef, text: string, existing: readonly FilterValue[], known: readonly KnownValue[] = []): FilterInput {
  const tokens = (d.type === "string" ? text.split(/\r?\n/) : text.split(/[\s,;]+/)).map((t) => t.trim()).filter((t) => t !== "");
  const out: FilterInput = { added: [], rejected: [], duplicates: 0, overLimit: 0, respelled: [] };
  for (const token of tokens) {
    let v = parseFilterValue(d, token);
    if (typeof v === "string" && !d.values) {
      const typed = v;
      const same = known.find((k) => typeof k.value === "string" && k.value !== typed && normalizeText(k.value).toLowerCase() === typed.toLowerCase());
      if (same && !known.some((k) => k.value === typed)) {
        v = same.value;
        out.respelled.push({ typed, as: String(v) });
      }
    }
    if (v === undefined) out.rejected.push({ token, reason: rejectReason(d, token) });
    else if (existing.includes(v) || out.added.includes(v)) out.duplicates++;
    else if (existing.length + out.added.length >= LIMITS.maxFilterValues) out.overLimit++;
    else out.added.push(v);
  }
  return out;
}

/** The last entry of what is being typed: free text is one value, numbers a list ("12, 1" → "1"). */
export function typedEntry(d: DimensionDef, text: string): string {
  return d.type === "string" ? text : (text.split(/[\s,;]+/).pop() ?? "");
}

/**
 * Known values to offer for what is typed: those whose value or name CONTAINS it, ignoring case and
 * runs of white space; exact matches first, then those starting with it, then those with a word
 * starting with it, then the rest, each in the order given. Values already in the filter are left
 * out. Nothing typed offers the first `limit`.
 */
export function suggestValues(known: readonly KnownValue[], typed: string, existing: readonly FilterValue[], limit = 8): KnownValue[] {
  const q = normalizeText(typed).toLowerCase();
  const ranked: { k: KnownValue; rank: number; i: number }[] = [];
  known.forEach((k, i) => {
    if (existing.includes(k.value)) return;
    if (q === "") return void ranked.push({ k, rank: 0, i });
    const texts = [normalizeText(String(k.value)).toLowerCase(), ...(k.label ? [normalizeText(k.label).toLowerCase()] : [])];
    const rank = texts.some((t) => t === q)
      ? 0
      : texts.some((t) => t.startsWith(q))
        ? 1
        : texts.some((t) => t.split(/[^\p{L}\p{N}]+/u).some((w) => w !== "" && w.startsWith(q)))
          ? 2
          : texts.some((t) => t.includes(q))
            ? 3
            : -1;
    if (rank >= 0) ranked.push({ k, rank, i });
  });
  return ranked
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .slice(0, limit)
    .map((r) => r.k);
}

/** The filter's values recent answers never held; none when nothing reliable is known. */
export function unseenValues(values: readonly FilterValue[], known: KnownValues | undefined): FilterValue[] {
  if (!known || known.reports === 0 || !known.complete) return [];
  const seen = new Set(known.values.map((k) => String(k.value)));
  return values.filter((v) => !seen.has(String(v)));
}

/** "the last report" or "the last 3 reports". */
export function lastReports(n: number): string {
  return n === 1 ? "the last report" : `the last ${n.toLocaleString("en-US")} reports`;
}

/** A value as its chip shows it in a sentence: ids bare, text quoted (so its spaces show). */
export function valueWords(v: FilterValue): string {
  return typeof v === "number" ? String(v) : `“${v}”`;
}

/**
 * What the filter row says before the report runs about values recent answers never held:
 * "9999 not seen in the last 3 reports." with, for text, the known values that contain it.
 */
export function unseenNote(values: readonly FilterValue[], known: KnownValues | undefined): string | null {
  const unseen = unseenValues(values, known);
  if (unseen.length === 0 || !known) return null;
  const shown = unseen.slice(0, 5).map(valueWords).join(", ") + (unseen.length > 5 ? ` and ${unseen.length - 5} more` : "");
  const near = unseen.flatMap((v) => (typeof v === "string" ? suggestValues(known.values, v, values, 3) : []));
  const nearText = [...new Set(near.map((k) => valueWords(k.value)))].slice(0, 3);
  return (
    `${shown} not seen in ${lastReports(known.reports)}: the report may come back empty.` +
    (nearText.length > 0 ? ` Seen: ${nearText.join(", ")}.` : "")
  );
}
