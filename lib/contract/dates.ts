/** Calendar-date helpers for `YYYY-MM-DD` strings (no time, no timezone), shared by both systems. */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** True when `s` is `YYYY-MM-DD` and names a day that exists (2024-02-29 yes, 2025-02-29 no). */
export function isCalendarDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** Days since 1970-01-01 of a valid calendar date. */
export function toEpochDay(s: string): number {
  return Math.round(Date.parse(`${s}T00:00:00Z`) / DAY_MS);
}

export function fromEpochDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(s: string, days: number): string {
  return fromEpochDay(toEpochDay(s) + days);
}

/** `b - a` in days. */
export function daysBetween(a: string, b: string): number {
  return toEpochDay(b) - toEpochDay(a);
}

/** Today's calendar date in an IANA time zone (default UTC). */
export function todayIn(timeZone = "UTC", now: Date = new Date()): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}
