/**
 * Card-network monitoring programmes as data: what a programme divides by what, over which months,
 * the minimum counts, and the thresholds with the dates they took effect. Validated with zod, so a
 * deployment can replace them (MONITOR_CONFIG, a JSON file) without a code change, and a bad file
 * stops the dashboard at start with the field named.
 */
import { z } from "zod";
import { ALERT_TYPES, CARD_BRANDS } from "@/lib/contract/dimensions";
import { addDays, isCalendarDate } from "@/lib/contract/dates";
import { exactCents } from "@/lib/contract/money";

export { STATUS_LABELS, STATUS_LEVELS, type StatusLevel } from "./status";

const day = z.string().refine(isCalendarDate, { error: "must be a date, YYYY-MM-DD" });
// A threshold applies to the months it covers whole (thresholdsInForce): a change dated inside a month
// would leave that month with neither the old threshold nor the new one, every MID silently "ok".
const monthStart = day.refine((s) => !isCalendarDate(s) || s.endsWith("-01"), {
  error: "must be the first day of a month (thresholds apply to whole months)",
});
const monthEnd = day.refine((s) => !isCalendarDate(s) || addDays(s, 1).endsWith("-01"), {
  error: "must be the last day of a month (thresholds apply to whole months)",
});
/** An amount in the display currency, to the cent (SPEC.md §2.3), so a count × price is exact in cents. */
const price = z.number().min(0).refine((n) => exactCents(n) !== null, { error: "must be an amount with at most 2 decimals" });

export const ThresholdSchema = z
  .strictObject({
    level: z.enum(["monitored", "excessive", "high_excessive"]),
    /** The ratio at or above which the level applies (0.015 is 1.5 %). */
    ratio: z.number().positive().max(1),
    /** The programme's numerator must reach this count too. */
    minCount: z.int().min(0),
    /** First day of the first month the threshold applies to; absent: always. */
    from: monthStart.optional(),
    /** Last day of the last month it applies to; absent: still in force. */
    until: monthEnd.optional(),
  })
  .refine((t) => t.from === undefined || t.until === undefined || t.from <= t.until, { path: ["until"], error: "must not be before from" });
export type Threshold = z.infer<typeof ThresholdSchema>;

export const ProgramSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/, { error: "ids are lower-case letters, digits and dashes" }),
  name: z.string().min(1),
  cardBrand: z.enum(CARD_BRANDS),
  /** What is counted: chargebacks by chargeback date, plus alerts of these types by alert date. */
  numerator: z.strictObject({ chargebacks: z.boolean(), alertTypes: z.array(z.enum(ALERT_TYPES)) }),
  /** Sales (every approved attempt, cascades included) of the same month, or of the month before. */
  denominator: z.strictObject({ month: z.enum(["same", "preceding"]) }),
  thresholds: z.array(ThresholdSchema).min(1),
  /** What the data cannot show about this programme, said on the page. */
  caveat: z.string().optional(),
});
export type Program = z.infer<typeof ProgramSchema>;

export const MonitorConfigSchema = z
  .strictObject({
    programs: z.array(ProgramSchema).min(1),
    /** What one alert costs, by type, in the display currency (for the alerts' cost against the chargebacks they prevented). */
    alertCost: z.strictObject({ ETHOCA: price, CDRN: price, RDR: price }),
  })
  .superRefine((config, ctx) => {
    // Ids key the programmes on the page and in links; two alike would show one programme twice.
    const seen = new Set<string>();
    config.programs.forEach((p, i) => {
      if (seen.has(p.id)) ctx.addIssue({ code: "custom", path: ["programs", i, "id"], message: `duplicate programme id "${p.id}"` });
      seen.add(p.id);
    });
  });
export type MonitorConfig = z.infer<typeof MonitorConfigSchema>;

/**
 * The defaults. Mastercard's Excessive Chargeback Program divides the chargebacks received in a month
 * by the Mastercard sales of the month before. Visa's VAMP (merchant level) divides fraud reports plus
 * disputes by the month's settled transactions; the data has no fraud reports (TC40), so only the
 * dispute part is shown, and disputes resolved through Visa's own RDR and CDRN count as disputes,
 * as Visa counts them, while Ethoca (Mastercard's) does not. Alert costs are typical list prices,
 * to be set per deployment.
 */
export const DEFAULT_MONITOR_CONFIG: MonitorConfig = {
  programs: [
    {
      id: "mastercard-ecp",
      name: "Mastercard Excessive Chargeback Program",
      cardBrand: "MASTERCARD",
      numerator: { chargebacks: true, alertTypes: [] },
      denominator: { month: "preceding" },
      thresholds: [
        { level: "monitored", ratio: 0.01, minCount: 100 },
        { level: "excessive", ratio: 0.015, minCount: 100 },
        { level: "high_excessive", ratio: 0.03, minCount: 300 },
      ],
    },
    {
      id: "visa-vamp",
      name: "Visa Acquirer Monitoring Program (merchant level)",
      cardBrand: "VISA",
      numerator: { chargebacks: true, alertTypes: ["RDR", "CDRN"] },
      denominator: { month: "same" },
      thresholds: [
        { level: "excessive", ratio: 0.022, minCount: 1501, from: "2025-04-01", until: "2026-03-31" },
        { level: "excessive", ratio: 0.015, minCount: 1501, from: "2026-04-01" },
      ],
      caveat: "Fraud reports (TC40) are not in the data: this shows the dispute part of the ratio only, so the real ratio can only be higher.",
    },
  ],
  alertCost: { ETHOCA: 30, CDRN: 25, RDR: 15 },
};

/** A configuration file's text, validated; every problem named with its path. */
export function parseMonitorConfig(json: unknown): MonitorConfig {
  const r = MonitorConfigSchema.safeParse(json);
  if (!r.success) {
    throw new Error(`Invalid monitor configuration: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  }
  return r.data;
}
