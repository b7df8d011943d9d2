/**
 * Alert rules and scheduled reports as the API answers with them (and as ./checked.ts reads their
 * stored JSON): rules with their evaluations and mail, subscriptions, the directory and the choices
 * the forms offer. Pure: no React.
 */
import type { EvaluationRecord } from "@/lib/features/notifications/alert-evaluation";
// Types only from the schemas' modules: their values (and zod) reach the browser through
// ./checked.ts, loaded when the lists are fetched again; the words come from zod-free modules.
import type { AlertDefinition, Recipients } from "@/lib/features/notifications/definition";
import type { ScheduleSpec } from "@/lib/features/notifications/spec";
import type { AlertEvaluation, AlertRule, Subscription } from "@/lib/features/notifications/model";
import type { SavedPage } from "@/lib/features/saved-reports/model";
import type { Role } from "@/lib/core/auth/roles";
import type { BounceJson, MailStatusJson } from "@/lib/core/mail/model";

/** What became of the mail (the lists answer it; a create or an edit does not). */
export interface MailFate {
  mail?: MailStatusJson[];
  bounces?: BounceJson[];
}

export interface RuleView extends AlertRule, MailFate {
  evaluations: AlertEvaluation[];
}
export interface AlertsAnswer {
  rules: RuleView[];
  mail: string;
}
export type SubscriptionView = Omit<Subscription, "shareTokenSealed"> & MailFate;

/** A rule's stored JSON as its schemas read it (./checked.ts): null where it can no longer be read. */
export interface CheckedRule extends RuleView {
  checked: { definition: AlertDefinition | null; schedule: ScheduleSpec | null; recipients: Recipients };
}
export interface CheckedAlerts {
  rules: CheckedRule[];
  mail: string;
}
export type CheckedSubscription = SubscriptionView & { checked: { schedule: ScheduleSpec | null; recipients: Recipients } };
export interface DirectoryUser {
  id: string;
  email: string;
  role: Role;
}
export interface Programme {
  id: string;
  name: string;
}
/** A saved report or dashboard a subscription can mail (GET /api/saved-reports). */
export interface SavedChoice {
  id: string;
  name: string;
  page: SavedPage;
  params: string;
  ownerEmail: string;
}

/** "Paused", or why it was paused when its owner did not pause it (lib/features/notifications/rights.ts). */
export function pausedLabel(reason: string | null | undefined): string {
  switch (reason) {
    case "owner_disabled":
      return "Paused: its owner was disabled (an admin can reassign it)";
    case "owner_role":
      return "Paused: its owner's role may no longer run it (an admin can reassign it)";
    case "report_unshared":
      return "Paused: its owner may no longer see or share the report";
    default:
      return "Paused";
  }
}

/** An evaluation's stored result, read defensively (it is JSON written by the scheduler). */
export function evaluationRecord(result: unknown): EvaluationRecord | null {
  if (!result || typeof result !== "object") return null;
  const r = result as Partial<EvaluationRecord>;
  return {
    reading: r.reading ?? null,
    notices: Array.isArray(r.notices) ? r.notices : [],
    sent: r.sent ?? { inbox: 0, emails: 0 },
    ...(typeof r.error === "string" ? { error: r.error } : {}),
    ...(typeof r.mailWithheld === "string" ? { mailWithheld: r.mailWithheld } : {}),
  };
}

/** Where a saved report opens, as the saved-reports list opens it. */
export function reportHref(s: { reportId: string; reportPage: string }, saved: readonly SavedChoice[] | undefined): string {
  if (s.reportPage === "dashboard") return `/dashboards/${s.reportId}`;
  if (s.reportPage === "monitor") return "/monitor";
  const r = saved?.find((x) => x.id === s.reportId);
  return r ? `/${r.page}?${r.params}` : `/reports/${s.reportId}`;
}
