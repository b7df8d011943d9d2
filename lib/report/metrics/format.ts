/**
 * Number, currency, percent and dimension-value formats, shared by the table, the chart, the cohort
 * grid and the CSV export so a value reads the same everywhere. The locale is fixed ("en-US") so the
 * server render and the browser agree character for character. Dimension values are formatted
 * by the catalog's type of the dimension.
 */
import { getDimension } from "@/lib/contract/catalog";
import type { DimensionType } from "@/lib/contract/dimensions";
/** "points": a difference of two percentages, in percentage points (0.021 reads "+2.10 pp"). */
export type ValueFormat = "count" | "currency" | "percent" | "points";

const LOCALE = "en-US";
/**
 * The contract carries amounts without a currency. Amounts are shown with this currency's symbol;
 * change it here (one place) if the merchant settles in another currency.
 */
export const DISPLAY_CURRENCY = "USD";

const count = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const currency = new Intl.NumberFormat(LOCALE, {
  style: "currency",
  currency: DISPLAY_CURRENCY,
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const percent = new Intl.NumberFormat(LOCALE, { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat(LOCALE, { notation: "compact", maximumFractionDigits: 1 });
// The minimum is stated, not left to the currency's default of 2: Node's ICU then pads compact
// amounts ("$500.0", "$250.0K") where browsers' ICU does not ("$500", "$250K"), and a chart the
// server drew would read differently from the one the browser hydrates.
const compactCurrency = new Intl.NumberFormat(LOCALE, {
  style: "currency",
  currency: DISPLAY_CURRENCY,
  notation: "compact",
  minimumFractionDigits: 0,
  maximumFractionDigits: 1,
});
const percentShort = new Intl.NumberFormat(LOCALE, { style: "percent", maximumFractionDigits: 1 });

/** What a missing value (no denominator, masked cell) looks like. */
export const NO_VALUE = "—";

export function formatValue(v: number | null | undefined, f: ValueFormat): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  switch (f) {
    case "count":
      return count.format(v);
    case "currency":
      return currency.format(v);
    case "percent":
      return percent.format(v);
    case "points":
      return formatChange(v, "points");
  }
}

const MINUS = "\u2212";
const signedFormats: Readonly<Record<ValueFormat, Intl.NumberFormat>> = {
  count: new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0, signDisplay: "exceptZero" }),
  currency: new Intl.NumberFormat(LOCALE, { style: "currency", currency: DISPLAY_CURRENCY, minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: "exceptZero" }),
  percent: new Intl.NumberFormat(LOCALE, { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: "exceptZero" }),
  points: new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: "exceptZero" }),
};

/**
 * The direction of a change as it is shown: 1 up, -1 down, 0 when it rounds to nothing at the
 * precision the reader sees (a "+0.00 pp (better)" would claim a movement nobody can see). The CSV
 * rounds the same way (exportValue), so the screen, the export and the better/worse words agree.
 */
export function changeDirection(v: number, f: ValueFormat): -1 | 0 | 1 {
  const shown = exportValue(v, f) ?? 0;
  return shown > 0 ? 1 : shown < 0 ? -1 : 0;
}

/**
 * A change as a finance reader writes it: every increase with "+", every decrease with a real minus
 * sign ("\u2212"), and no change as a zero in the same unit and precision, without a sign ("+40",
 * "\u221240.40%", "+$5,243.75", "\u22120.44 pp"; "0", "0.00%", "$0.00", "0.00 pp"): a bare "0" in a
 * column of percentages or points would not say what it counts.
 * Every change cell (table, tile, chart tooltip, shared page, e-mail) is worded by this one function.
 */
export function formatChange(v: number | null | undefined, f: ValueFormat): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  const text = changeDirection(v, f) === 0 ? signedFormats[f].format(0) : signedFormats[f].format(f === "points" ? v * 100 : v).replace("-", MINUS);
  return f === "points" ? `${text} pp` : text;
}

/** "1 row", "2 rows", "1,250 rows". */
export function formatCount(n: number, singular: string, plural = `${singular}s`): string {
  return `${count.format(n)} ${n === 1 ? singular : plural}`;
}

/** Short form for chart axes: 1.2K, $3.4M, 12.5%. */
export function formatCompact(v: number | null | undefined, f: ValueFormat): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "";
  if (f === "percent") return percentShort.format(v);
  if (f === "points") return formatChange(v, "points");
  return f === "currency" ? compactCurrency.format(v) : compact.format(v);
}

/**
 * The number a CSV carries for a value: what the table shows, without symbols or separators.
 * Counts are whole, amounts have 2 decimals, percents are in percent units with 2 decimals.
 */
export function exportValue(v: number | null | undefined, f: ValueFormat): number | null {
  if (v === null || v === undefined || !Number.isFinite(v)) return null;
  switch (f) {
    case "count":
      return Math.round(v);
    case "currency":
      return round2(v);
    case "percent":
    case "points":
      return round2(v * 100);
  }
}

export function round2(v: number): number {
  const r = Math.round((v + Number.EPSILON * Math.sign(v)) * 100) / 100;
  return Object.is(r, -0) ? 0 : r;
}

/** How an empty dimension value (e.g. refund_type on an attempt row) is shown. */
export const EMPTY_DIMENSION = "(none)";

/** An ISO instant shown in the report time zone, e.g. "2025-07-31 14:03:05 Europe/Berlin". */
export function formatInstant(iso: string, timeZone: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).formatToParts(d);
  const get = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}:${get("second")} ${timeZone}`;
}

/** "about 40 s", "about 3 min": a wait rounded to what a person can use. */
export function formatWait(ms: number): string {
  if (ms <= 1_000) return "any moment now";
  const s = Math.ceil(ms / 1000);
  if (s < 90) return `about ${s} s`;
  return `about ${Math.round(s / 60)} min`;
}

/** A dimension value as text, given its type: ids without separators, price points with 2 decimals. */
export function formatTypedValue(type: DimensionType | undefined, v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === "") return EMPTY_DIMENSION;
  if (typeof v === "number" && type === "decimal") return v.toFixed(2);
  return String(v);
}

/** A dimension value as text, by the catalog's type of that dimension. */
export function formatDimensionValue(dimension: string, v: string | number | null | undefined): string {
  return formatTypedValue(getDimension(dimension)?.type, v);
}
