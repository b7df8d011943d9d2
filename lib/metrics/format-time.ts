/**
 * Words the report pages show before any number (re-exported by ./format.ts, with the number formats):
 * an empty dimension value, an instant in the report time zone, and a wait.
 */
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
