/**
 * An alert rule's windows and condition in words, without zod: the /alerts page draws rules with
 * these, and importing ./definition.ts (the schemas) would put zod (≈ 31 KB gzipped) in its first
 * load. The schemas import the windows from here, so the list is written once.
 */
import type { ValueFormat } from "@/lib/metrics/format";
import { formatValue } from "@/lib/metrics/format";
import type { RangePreset } from "@/lib/report-state/range";
import type { AlertCondition } from "./definition";

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
