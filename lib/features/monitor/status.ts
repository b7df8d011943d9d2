/**
 * A programme status's levels and their names on screen. Apart from definitions.ts, whose zod schemas
 * the browser does not need: the Monitor's pages import these, not zod (about 30 KB gzipped).
 */
export const STATUS_LEVELS = ["ok", "monitored", "excessive", "high_excessive"] as const;
export type StatusLevel = (typeof STATUS_LEVELS)[number];
export const STATUS_LABELS: Readonly<Record<StatusLevel, string>> = {
  ok: "Below every threshold",
  monitored: "Monitored",
  excessive: "Excessive",
  high_excessive: "High excessive",
};
