/**
 * An alert rule's windows and condition in words, without zod: the /alerts page draws rules with
 * these, and importing ./definition.ts (the schemas) would put zod (≈ 31 KB gzipped) in its first
 * load. The schemas import the windows from here, so the list is written once.
 */
import type { Direction } from "@/lib/contract/catalog";
import type { ValueFormat } from "@/lib/metrics/format";
import { formatValue } from "@/lib/metrics/format";
import type { RangePreset } from "@/lib/report-state/range";
import type { AlertCondition, AlertTarget } from "./definition";

/** Date presets (lib/report-state/range.ts) an alert can be evaluated over. */
export const ALERT_WINDOWS = ["today", "yesterday", "last7", "mtd"] as const satisfies readonly RangePreset[];
export type AlertWindow = (typeof ALERT_WINDOWS)[number];
export const WINDOW_LABELS: Record<AlertWindow, string> = {
  today: "today so far",
  yesterday: "yesterday",
  last7: "the last 7 days",
  mtd: "the month to date",
};

export function describeCondition(c: AlertCondition, format: ValueFormat): string {
  switch (c.kind) {
    case "above":
      return `above ${formatValue(c.value, format)}`;
    case "below":
      return `below ${formatValue(c.value, format)}`;
    case "change": {
      const dir = c.direction === "up" ? "up" : c.direction === "down" ? "down" : "up or down";
      return `${dir} by more than ${c.by === "points" ? `${c.amount} points` : `${c.amount}%`} on the previous period`;
    }
  }
}

/** The condition a new rule starts with: the kind, and for a change its direction. */
export type DefaultCondition = { kind: "above" } | { kind: "below" } | { kind: "change"; direction: "either" };

/**
 * A programme's levels are reached at or above their thresholds (lib/programs/evaluate.ts statusOf),
 * so a programme's ratio is better lower, like the chargeback rate it is made of.
 */
export const PROGRAMME_BETTER: Direction = "lower";

/**
 * The condition that fires on bad news for a measure, from the way it is better (the catalog's
 * betterWhen and the KPIs' `better`, lib/metrics/kpis.ts): above a value for a measure better lower
 * (chargeback, refund and alert rates and counts, costs, a programme's ratio), below one for a
 * measure better higher (approval rate, approvals, revenue), and for a volume that is neither (attempts)
 * a change either way, since a spike and a fall can each be the news.
 */
export function badNewsCondition(better: Direction): DefaultCondition {
  switch (better) {
    case "lower":
      return { kind: "above" };
    case "higher":
      return { kind: "below" };
    case "neutral":
      return { kind: "change", direction: "either" };
  }
}

/** A target's default condition; `betterOf` gives a measure's direction (undefined for one not known: neither). */
export function defaultCondition(target: AlertTarget | null, betterOf: (measure: string) => Direction | undefined): DefaultCondition {
  if (!target) return badNewsCondition("neutral");
  return badNewsCondition(target.kind === "programme" ? PROGRAMME_BETTER : (betterOf(target.measure) ?? "neutral"));
}
