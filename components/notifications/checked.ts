/**
 * The stored parts of rules and subscriptions (definition, schedule, recipients: JSON written by the
 * API) checked against their zod schemas, once, before the page draws them. The server's render
 * checks what it hands the page; the browser loads this module only when it fetches the lists again
 * (after a change), so the schemas and zod (≈ 31 KB gzipped) are not part of the page's first load.
 * No React, no "use client": both sides import it.
 */
import { AlertDefinition, Recipients } from "@/lib/features/notifications/definition";
import { ScheduleSpec } from "@/lib/features/notifications/spec";
import type { AlertsAnswer, CheckedAlerts, CheckedRule, CheckedSubscription, RuleView, SubscriptionView } from "./answers";

function parseDefinition(raw: unknown): AlertDefinition | null {
  const r = AlertDefinition.safeParse(raw);
  return r.success ? r.data : null;
}
function parseSchedule(raw: unknown): ScheduleSpec | null {
  const r = ScheduleSpec.safeParse(raw);
  return r.success ? r.data : null;
}
/** Unreadable recipients read as nobody (the owner is told in the inbox regardless). */
function parseRecipients(raw: unknown): Recipients {
  const r = Recipients.safeParse(raw);
  return r.success ? r.data : { users: [], emails: [] };
}

export function checkRule(rule: RuleView): CheckedRule {
  return { ...rule, checked: { definition: parseDefinition(rule.definition), schedule: parseSchedule(rule.schedule), recipients: parseRecipients(rule.recipients) } };
}

export function checkAlerts(answer: AlertsAnswer): CheckedAlerts {
  return { ...answer, rules: answer.rules.map(checkRule) };
}

export function checkSubscription(s: SubscriptionView): CheckedSubscription {
  return { ...s, checked: { schedule: parseSchedule(s.schedule), recipients: parseRecipients(s.recipients) } };
}
