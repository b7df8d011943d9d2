/**
 * What an alert rule watches and when it fires: an Explore measure (a metric or KPI of the
 * order summary) or a card-network programme's ratio per MID, a condition, the grouping it is
 * evaluated per, filters, the window of days, the schedule, who is told, and a cool-down.
 */
import { z } from "zod";
import type { Direction } from "@/lib/contract/catalog";
import { dimensionsFor, getDimension } from "@/lib/contract/dimensions";
import { formatValue, type ValueFormat } from "@/lib/report/metrics/format";
import { measureFor } from "@/lib/report/metrics/kpis";
import { normalizeFilters, type Filters } from "@/lib/report/state/filters";
import { resolveRange, type RangePreset } from "@/lib/report/state/range";
import { ScheduleSpec } from "@/lib/features/notifications/spec";


/** Date presets (lib/report/state/range.ts) an alert can be evaluated over. */
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
 * A programme's levels are reached at or above their thresholds (lib/features/monitor/evaluate.ts statusOf),
 * so a programme's ratio is better lower, like the chargeback rate it is made of.
 */
export const PROGRAMME_BETTER: Direction = "lower";

/**
 * The condition that fires on bad news for a measure, from the way it is better (the catalog's
 * betterWhen and the KPIs' `better`, lib/report/metrics/kpis.ts): above a value for a measure better lower
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

const Threshold = z.number().finite().min(-1e12).max(1e12);

export const AlertCondition = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("above"), value: Threshold }),
  z.strictObject({ kind: z.literal("below"), value: Threshold }),
  /** A change against the previous window of the same length, in % of it or (rates) in points. */
  z.strictObject({
    kind: z.literal("change"),
    direction: z.enum(["up", "down", "either"]),
    by: z.enum(["percent", "points"]),
    amount: z.number().finite().positive().max(1e6),
  }),
]);
export type AlertCondition = z.output<typeof AlertCondition>;

export const AlertTarget = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("measure"), measure: z.string().min(1).max(64) }),
  /** A programme of the Monitor (lib/features/monitor): its ratio per MID and card brand, this month to date. */
  z.strictObject({ kind: z.literal("programme"), programme: z.string().min(1).max(64) }),
]);
export type AlertTarget = z.output<typeof AlertTarget>;

const FilterValues = z.array(z.union([z.string().max(200), z.number()])).min(1).max(100);

/**
 * Filters by dimension. Their keys are checked on the object as sent, before it becomes a record: the
 * record leaves out a "__proto__" key unseen, and a dropped filter would watch (and mail) more than
 * the rule says.
 */
const AlertFilters = z.preprocess((input, ctx) => {
  if (input !== null && typeof input === "object" && !Array.isArray(input)) {
    for (const key of Object.keys(input)) {
      if (!dimensionsFor("orders").some((d) => d.name === key)) ctx.addIssue({ code: "custom", path: [key], message: `“${key}” is not a dimension of the order summary`, input });
    }
  }
  return input;
}, z.record(z.string().max(64), FilterValues));

export const AlertDefinition = z
  .strictObject({
    target: AlertTarget,
    condition: AlertCondition,
    /** The dimension it is evaluated per (one group per value), or null for the whole. */
    group_by: z.string().max(64).nullable(),
    filters: AlertFilters.default({}),
    window: z.enum(ALERT_WINDOWS),
  })
  .superRefine((d, ctx) => {
    if (d.target.kind === "measure" && !measureFor(d.target.measure, "orders")) {
      ctx.addIssue({ code: "custom", path: ["target", "measure"], message: `“${d.target.measure}” is not a metric or KPI of the order summary` });
    }
    if (d.target.kind === "measure" && d.condition.kind === "change" && d.condition.by === "points" && measureFor(d.target.measure, "orders")?.format !== "percent") {
      ctx.addIssue({ code: "custom", path: ["condition", "by"], message: "A change in points is for rates; use percent for this measure" });
    }
    if (d.target.kind === "programme") {
      if (d.group_by !== null) ctx.addIssue({ code: "custom", path: ["group_by"], message: "A programme ratio is always per MID and card brand; leave group_by empty" });
      if (d.window !== "mtd") ctx.addIssue({ code: "custom", path: ["window"], message: "A programme ratio is monthly: its window is the month to date" });
      if (Object.keys(d.filters).length > 0) ctx.addIssue({ code: "custom", path: ["filters"], message: "A programme ratio takes no filters" });
    }
    const dims = new Set(dimensionsFor("orders").map((x) => x.name));
    if (d.group_by !== null && (!dims.has(d.group_by) || d.group_by === "date")) {
      ctx.addIssue({ code: "custom", path: ["group_by"], message: `“${d.group_by}” is not a dimension an alert can be evaluated per` });
    }
    for (const [dim, values] of Object.entries(d.filters)) {
      const def = getDimension(dim);
      if (!def) continue;
      if (Object.keys(normalizeFilters("orders", { [dim]: values })).length === 0 || normalizeFilters("orders", { [dim]: values })[dim]!.length !== new Set(values).size) {
        ctx.addIssue({ code: "custom", path: ["filters", dim], message: `a value is not a ${def.label}` });
      }
    }
  });
export type AlertDefinition = z.output<typeof AlertDefinition>;

const Email = z.email({ error: "not an e-mail address" }).max(254);

export const Recipients = z.strictObject({
  /** Dashboard users (ids): told in the in-app inbox, and by e-mail when mail is on. */
  users: z.array(z.uuid()).max(50).default([]),
  /** Other addresses: e-mail only. */
  emails: z.array(Email).max(20).default([]),
});
export type Recipients = z.output<typeof Recipients>;

export const AlertRuleInput = z.strictObject({
  name: z.string().trim().min(1, { error: "name is required" }).max(200),
  definition: AlertDefinition,
  schedule: ScheduleSpec,
  recipients: Recipients,
  cooldown_minutes: z.int().min(0).max(10_080),
  paused: z.boolean().default(false),
});
export type AlertRuleInput = z.output<typeof AlertRuleInput>;
/** What a change names, and nothing else: a field left out keeps its value (`paused` too, so no default here). */
export const AlertRulePatch = AlertRuleInput.extend({ paused: z.boolean(), /** Admins: give the rule to another user. */ owner_id: z.uuid() }).partial();
export type AlertRulePatch = z.output<typeof AlertRulePatch>;

/** The window's days, as of `today` in the reporting time zone: the date presets of the same names. */
export function windowRange(window: AlertWindow, today: string): { start: string; end: string } {
  return resolveRange({ preset: window }, today);
}

export function typedFilters(d: AlertDefinition): Filters {
  return normalizeFilters("orders", d.filters);
}
