/**
 * What the alert and scheduled-report forms hold (thresholds typed in the unit a person reads:
 * percent, dollars, a count), their conversion to the API's input, and the server's error details
 * mapped back onto the forms' fields. Pure: no React.
 */
// Types only from the schemas' modules: their values (and zod) reach the browser through
// ./checked.ts, loaded when the lists are fetched again; the words come from zod-free modules.
import type { AlertCondition, AlertDefinition, Recipients } from "@/lib/features/notifications/definition";
import { defaultCondition, type AlertWindow } from "@/lib/features/notifications/definition";
import type { ValueFormat } from "@/lib/report/metrics/format";
import type { Filters } from "@/lib/report/state/filters";
import type { ScheduleSpec } from "@/lib/features/notifications/spec";
import type { CheckedRule } from "./answers";
import { type AlertVocabulary, dimensionOf, parseTarget, targetFormat, targetValue } from "./rule-words";

export interface ScheduleDraft {
  every: ScheduleSpec["every"];
  minute: number;
  hour: number;
  weekday: number;
  day: number;
}
export const DEFAULT_SCHEDULE: ScheduleDraft = { every: "day", minute: 0, hour: 8, weekday: 1, day: 1 };

export function scheduleSpec(d: ScheduleDraft): ScheduleSpec {
  switch (d.every) {
    case "hour":
      return { every: "hour", minute: d.minute };
    case "day":
      return { every: "day", hour: d.hour };
    case "week":
      return { every: "week", weekday: d.weekday, hour: d.hour };
    case "month":
      return { every: "month", day: d.day, hour: d.hour };
  }
}

export function scheduleDraft(s: ScheduleSpec | null): ScheduleDraft {
  if (!s) return DEFAULT_SCHEDULE;
  switch (s.every) {
    case "hour":
      return { ...DEFAULT_SCHEDULE, every: "hour", minute: s.minute ?? 0 };
    case "day":
      return { ...DEFAULT_SCHEDULE, every: "day", hour: s.hour };
    case "week":
      return { ...DEFAULT_SCHEDULE, every: "week", weekday: s.weekday, hour: s.hour };
    case "month":
      return { ...DEFAULT_SCHEDULE, every: "month", day: s.day, hour: s.hour };
  }
}

export interface RecipientsDraft {
  users: string[];
  /** The textarea: one address per line. */
  emails: string;
}
export const recipientsDraft = (r: Recipients): RecipientsDraft => ({ users: r.users, emails: r.emails.join("\n") });

/** The addresses typed, one per line (commas and semicolons separate too), blanks dropped. */
export function emailList(text: string): string[] {
  return text
    .split(/[\n,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
export const recipientsInput = (d: RecipientsDraft): Recipients => ({ users: d.users, emails: emailList(d.emails) });

export interface RuleDraft {
  name: string;
  /** "measure:approval_rate" or "programme:mastercard-ecp". */
  target: string;
  condition: AlertCondition["kind"];
  /**
   * Whether the person chose the condition (its kind, direction or unit) themselves. Until they do,
   * it follows what is watched (withTarget); an edited rule's condition is its own.
   */
  conditionChosen: boolean;
  /** above/below: as typed, in the measure's unit (percent, dollars, a count). */
  threshold: string;
  direction: "up" | "down" | "either";
  by: "percent" | "points";
  amount: string;
  /** "" for none. Kept while a programme is picked (which ignores it) so switching back restores it. */
  groupBy: string;
  filters: Filters;
  window: AlertWindow;
  schedule: ScheduleDraft;
  recipients: RecipientsDraft;
  cooldown: string;
}

/** A target's default condition, from the vocabulary's directions (lib/features/notifications/definition.ts defaultCondition). */
const conditionFor = (target: string, words: AlertVocabulary) => defaultCondition(parseTarget(target), (m) => words.measures[m]?.better);

/** What a scheduled report is while its form edits it. */
export interface SubscriptionDraft {
  reportId: string;
  schedule: ScheduleDraft;
  recipients: RecipientsDraft;
  /** What the e-mail attaches, one or more of "csv", "xlsx" and "pdf". */
  formats: string[];
}

/** A new scheduled report: weekly, to its owner. */
export const emptySubscriptionDraft = (selfId: string): SubscriptionDraft => ({
  reportId: "",
  schedule: { ...DEFAULT_SCHEDULE, every: "week" },
  recipients: { users: [selfId], emails: "" },
  formats: ["csv"],
});

export function emptyRuleDraft(selfId: string | null, words: AlertVocabulary): RuleDraft {
  const target = "measure:approval_rate";
  const condition = conditionFor(target, words);
  return {
    name: "",
    target,
    condition: condition.kind,
    conditionChosen: false,
    threshold: "",
    direction: "either",
    by: "percent",
    amount: "",
    groupBy: "",
    filters: {},
    window: "today",
    schedule: { ...DEFAULT_SCHEDULE, every: "hour" },
    recipients: { users: selfId ? [selfId] : [], emails: "" },
    cooldown: "240",
  };
}

/** A stored number shown as typed: 0.025 (a rate) reads 2.5; no float noise (2.5000000000000004). */
export function displayThreshold(value: number, format: ValueFormat): string {
  const v = format === "percent" ? value * 100 : value;
  return String(Number(v.toPrecision(12)));
}

export function ruleDraft(rule: CheckedRule, words: AlertVocabulary): RuleDraft | null {
  const d = rule.checked.definition;
  if (!d) return null;
  const format = targetFormat(d.target, words);
  const c = d.condition;
  return {
    name: rule.name,
    target: targetValue(d.target),
    condition: c.kind,
    conditionChosen: true,
    threshold: c.kind === "change" ? "" : displayThreshold(c.value, format),
    direction: c.kind === "change" ? c.direction : "either",
    by: c.kind === "change" ? c.by : "percent",
    amount: c.kind === "change" ? String(c.amount) : "",
    groupBy: d.group_by ?? "",
    filters: d.filters as Filters,
    window: d.window,
    schedule: scheduleDraft(rule.checked.schedule),
    recipients: recipientsDraft(rule.checked.recipients),
    cooldown: String(rule.cooldownMinutes),
  };
}

/**
 * The draft once `value` is chosen to watch: a condition the person has not chosen follows the new
 * measure's bad direction; points are for rates, so an amount or a count compares in percent. What
 * was typed (the value, the change) is kept.
 */
export function withTarget(d: RuleDraft, value: string, words: AlertVocabulary): RuleDraft {
  const next: RuleDraft = { ...d, target: value };
  if (targetFormat(parseTarget(value), words) !== "percent") next.by = "percent";
  if (!d.conditionChosen) {
    const c = conditionFor(value, words);
    next.condition = c.kind;
    if (c.kind === "change") next.direction = c.direction;
  }
  return next;
}

export type RuleField = "name" | "target" | "condition" | "group_by" | "filters" | "window" | "schedule" | "recipients" | "cooldown";
export type SubscriptionField = "report" | "schedule" | "recipients" | "formats";
export type FieldErrors<F extends string> = Partial<Record<F, string[]>>;

export const RULE_FIELD_LABELS: Record<RuleField, string> = {
  name: "Name",
  target: "What to watch",
  condition: "Condition",
  group_by: "Evaluated per",
  filters: "Filters",
  window: "Window",
  schedule: "Schedule",
  recipients: "Recipients",
  cooldown: "Cool-down",
};
export const SUBSCRIPTION_FIELD_LABELS: Record<SubscriptionField, string> = { report: "Report or dashboard", schedule: "Schedule", recipients: "Recipients", formats: "Attach" };

export type RuleBody = {
  name: string;
  definition: { target: AlertDefinition["target"]; condition: AlertCondition; group_by: string | null; filters: Filters; window: AlertWindow };
  schedule: ScheduleSpec;
  recipients: Recipients;
  cooldown_minutes: number;
};

const numberOf = (s: string): number | null => (s.trim() === "" || !Number.isFinite(Number(s)) ? null : Number(s));

/**
 * What a draft watches and when it fires, as the API takes it, with the problems a person can fix
 * in those fields (a number that is not one, a count that is not whole, a filter without a value);
 * null while any of them is not filled in. A programme sends month to date, no grouping and no
 * filters, whatever the draft remembers.
 */
export function draftDefinition(d: RuleDraft, words: AlertVocabulary): { definition: RuleBody["definition"] | null; errors: FieldErrors<RuleField> } {
  const errors: FieldErrors<RuleField> = {};
  const add = (f: RuleField, m: string) => (errors[f] ??= []).push(m);
  const target = parseTarget(d.target);
  if (!target) add("target", "Choose what to watch.");
  const format = targetFormat(target, words);
  let condition: AlertCondition | null = null;
  if (d.condition === "change") {
    const amount = numberOf(d.amount);
    if (amount === null || amount <= 0) add("condition", "Enter the change as a number greater than 0.");
    else condition = { kind: "change", direction: d.direction, by: format === "percent" ? d.by : "percent", amount };
  } else {
    const typed = numberOf(d.threshold);
    if (typed === null) add("condition", "Enter the value to compare with, as a number.");
    else if (format === "count" && !Number.isInteger(typed)) add("condition", "A count is a whole number: enter it without decimals.");
    else condition = { kind: d.condition, value: format === "percent" ? Number((typed / 100).toPrecision(12)) : typed };
  }
  const emptyFilters = Object.entries(d.filters)
    .filter(([, v]) => v.length === 0)
    .map(([k]) => dimensionOf(words, k)?.label ?? k);
  if (target?.kind !== "programme" && emptyFilters.length > 0) add("filters", `Choose at least one value for ${emptyFilters.join(", ")}, or remove ${emptyFilters.length === 1 ? "that filter" : "those filters"}.`);
  if (!target || !condition || Object.keys(errors).length > 0) return { definition: null, errors };
  const programme = target.kind === "programme";
  return {
    definition: { target, condition, group_by: programme || !d.groupBy ? null : d.groupBy, filters: programme ? {} : d.filters, window: programme ? "mtd" : d.window },
    errors,
  };
}

/**
 * The API's input from a draft, or the problems a person can fix before sending (those of
 * draftDefinition, a schedule's minute, a cool-down). Everything else is the server's to judge.
 */
export function ruleBody(d: RuleDraft, words: AlertVocabulary): { ok: true; body: RuleBody } | { ok: false; errors: FieldErrors<RuleField> } {
  const { definition, errors } = draftDefinition(d, words);
  const add = (f: RuleField, m: string) => (errors[f] ??= []).push(m);
  if (d.schedule.every === "hour" && !(Number.isInteger(d.schedule.minute) && d.schedule.minute >= 0 && d.schedule.minute <= 59)) add("schedule", "Enter the minute past the hour, 0 to 59.");
  const cooldown = numberOf(d.cooldown);
  if (cooldown === null || !Number.isInteger(cooldown) || cooldown < 0 || cooldown > 10_080) add("cooldown", "Enter whole minutes from 0 to 10080 (a week).");
  if (!definition || Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    body: {
      name: d.name,
      definition,
      schedule: scheduleSpec(d.schedule),
      recipients: recipientsInput(d.recipients),
      cooldown_minutes: cooldown!,
    },
  };
}
