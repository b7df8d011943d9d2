/**
 * Alert rules, their evaluations, scheduled reports and inbox messages as the pages and the API see
 * them. Types only: the browser imports them, the stores (./alerts-store.ts, ./subscriptions-store.ts,
 * ./inbox-store.ts) read their rows into them.
 */

export interface ScheduledAutomation {
  id: string;
  ownerId: string;
  ownerEmail: string;
  schedule: unknown;
  recipients: unknown;
  paused: boolean;
  /** Why it was paused when its owner did not pause it (lib/features/notifications/rights.ts), or null. */
  pausedReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AlertRule extends ScheduledAutomation {
  name: string;
  definition: unknown;
  cooldownMinutes: number;
}

export interface AlertEvaluation {
  id: number;
  slot: string;
  evaluatedAt: string;
  late: boolean;
  result: unknown;
}

export interface Subscription extends ScheduledAutomation {
  reportId: string;
  reportName: string;
  reportPage: string;
  shareLinkId: string | null;
  shareTokenSealed: string | null;
  /** What its e-mail attaches: some of "csv", "xlsx", "pdf" (ATTACHMENT_FORMATS in ./subscriptions.ts). */
  formats: string[];
}

export interface InboxMessage {
  id: number;
  createdAt: string;
  readAt: string | null;
  title: string;
  body: string;
  link: string | null;
  sourceKind: string;
}
