/**
 * The contract's scalar schemas (SPEC.md §1–4): calendar dates, timestamps and case-insensitive
 * enums, shared by the request, response and routing schemas.
 */
import { z } from "zod";
import { isCalendarDate } from "./dates";

export const CalendarDate = z
  .string({ error: (iss) => (iss.input === undefined ? "is required" : "must be a date string YYYY-MM-DD") })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date in the form YYYY-MM-DD", abort: true })
  .refine(isCalendarDate, { error: "is not a real calendar date" })
  .meta({ format: "date", example: "2025-07-01" });

export const Timestamp = z.string().meta({ format: "date-time", example: "2025-07-31T12:00:00.000Z" });

/** A string matched case-insensitively against `values` and returned in its canonical spelling. */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v] as const));
  return z
    .string()
    .transform((s, ctx): T[number] => {
      const canonical = byLower.get(s.toLowerCase());
      if (canonical === undefined) {
        ctx.addIssue({ code: "custom", message: `must be one of ${values.map((v) => `"${v}"`).join(", ")} (case-insensitive)` });
        return z.NEVER;
      }
      return canonical;
    })
    .meta({ enum: [...values], description: "matched case-insensitively" });
}
