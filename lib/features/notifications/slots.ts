import "server-only";
/**
 * Alerts and scheduled reports as the scheduler and the routes run them: what is scheduled, one slot
 * of a rule or subscription, "Evaluate now", "Send now" and the preview. The process that ticks the
 * scheduler and sends the mail is lib/startup/background.ts.
 *
 * An alert's life, by module: the rule (./alert-rules.ts) → its evaluation (./evaluate.ts, pure;
 * ./alert-evaluation.ts: the reports, the reading, the notices and the inbox messages) → its mail
 * (./mail-queue.ts, into the outbox lib/core/mail/outbox.ts, sent by lib/core/mail/worker.ts). A
 * scheduled report's: the subscription (./subscriptions.ts) → its issue (./subscription-issue.ts:
 * its files ./issue-attachments.ts, its e-mail ./issue-message.ts, who gets which link
 * ./issue-audience.ts) → the same mail queue.
 */
import { evaluateRule, type EvaluationRecord } from "@/lib/features/notifications/alert-evaluation";
import { mailQueue, type MailQueue } from "@/lib/features/notifications/mail-queue";
import { ScheduleSpec } from "@/lib/features/notifications/spec";
import type { ScheduledItem } from "@/lib/features/notifications/scheduler";
import { serverEnv, type ServerEnv } from "@/lib/core/env/env";
import { mailConfigFrom } from "@/lib/core/mail/transport";
import { monitorConfig } from "@/lib/features/monitor/config";
import { getStore } from "@/lib/core/store";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import type { Store } from "@/lib/core/store/sql";
import { subscriptionsRepo } from "@/lib/features/notifications/subscriptions-store";
import { buildSubscriptionIssue, sendSubscription, type IssueMail, type IssuePending } from "@/lib/features/notifications/subscription-issue";
import type { PdfMaker, RetryClock } from "@/lib/features/notifications/issue-attachments";
import { savedReportPdf } from "@/lib/features/sharing/pdf";
import { ownSubscription } from "@/lib/features/notifications/subscriptions";
import { unseal } from "@/lib/features/sharing/seal";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { ApiError } from "@/lib/contract/errors";
import { TOKEN_TAIL_LENGTH } from "@/lib/features/sharing/link-input";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { getGateway } from "@/lib/core/upstream";
import type { MonitorConfig } from "@/lib/features/monitor/definitions";
import { refuseStopped, ruleStop, subscriptionStop } from "./rights";
import { MailLimitError, mailPolicyFrom, takeRunNow, takeSendNow, type MailPolicy } from "./policy";

/** How long a slot's reports may wait behind people's (inside the claim's 5-minute lease). */
const REPORT_WAIT_MS = 4 * 60_000;

/**
 * Every rule and subscription as the scheduler sees it. A slot before the item's last change never
 * runs: a rule edited or resumed at 09:10 waits for its next slot rather than running 08:00's late.
 */
export async function scheduledItems(db: Store): Promise<ScheduledItem[]> {
  const items: ScheduledItem[] = [];
  for (const r of await alertsRepo(db).list(null)) {
    const spec = ScheduleSpec.safeParse(r.schedule);
    if (spec.success) items.push({ kind: "alert", id: r.id, spec: spec.data, notBefore: new Date(r.updatedAt), paused: r.paused });
  }
  for (const s of await subscriptionsRepo(db).list(null)) {
    const spec = ScheduleSpec.safeParse(s.schedule);
    if (spec.success) items.push({ kind: "subscription", id: s.id, spec: spec.data, notBefore: new Date(s.updatedAt), paused: s.paused });
  }
  return items;
}

export interface NotifyDeps {
  db: Store;
  gateway: ReportGateway;
  env: Pick<ServerEnv, "REPORT_TIMEZONE" | "NEXTAUTH_SECRET" | "NEXTAUTH_URL">;
  mail: MailQueue;
  waitMs?: number;
  /** The mail policy (from the environment unless given). */
  policy?: MailPolicy;
  /** The Monitor's programmes (from the environment unless given). */
  monitor?: MonitorConfig;
  /** Makes a scheduled report's PDF (this process's renderer, through the dashboard at NEXTAUTH_URL, unless given). */
  pdf?: PdfMaker;
  /** How a scheduled PDF the renderer cannot make yet waits to ask again (the real clock unless given). */
  clock?: RetryClock;
}

/** A report's PDF by this process's renderer, opening the print view of the dashboard at NEXTAUTH_URL. */
const pdfOf = (deps: NotifyDeps): PdfMaker =>
  deps.pdf ?? ((owner, reportId, queue) => savedReportPdf(owner, reportId, { preset: null, queue, db: deps.db, baseUrl: deps.env.NEXTAUTH_URL }));

/** Runs one slot of a rule or subscription (what the scheduler calls). */
export async function runSlot(deps: NotifyDeps, item: ScheduledItem, late: boolean, slot: Date): Promise<void> {
  const waitMs = deps.waitMs ?? REPORT_WAIT_MS;
  if (item.kind === "alert") {
    const rule = await alertsRepo(deps.db).get(item.id);
    if (!rule) return; // deleted since the tick listed it
    // With the owner's rights now: a rule whose owner may no longer own it stops, and says why.
    const stop = await ruleStop(deps.db, rule);
    if (stop) return alertsRepo(deps.db).pauseFor(rule.id, stop.reason);
    await evaluateRule(
      { db: deps.db, gateway: deps.gateway, timeZone: deps.env.REPORT_TIMEZONE, monitor: deps.monitor ?? monitorConfig(), mail: deps.mail, waitMs, baseUrl: deps.env.NEXTAUTH_URL, policy: policyOf(deps) },
      rule,
      slot,
      late,
    );
    return;
  }
  const sub = await subscriptionsRepo(deps.db).get(item.id);
  if (!sub) return;
  const stop = await subscriptionStop(deps.db, sub);
  if (stop) return subscriptionsRepo(deps.db).pauseFor(sub.id, stop.reason);
  await sendSubscription(
    {
      db: deps.db,
      gateway: deps.gateway,
      timeZone: deps.env.REPORT_TIMEZONE,
      secret: deps.env.NEXTAUTH_SECRET,
      baseUrl: deps.env.NEXTAUTH_URL,
      mail: deps.mail,
      waitMs,
      policy: policyOf(deps),
      pdf: pdfOf(deps),
      ...(deps.clock ? { clock: deps.clock } : {}),
    },
    sub,
    late,
  );
}

/**
 * "Evaluate now" on a rule: a slot of its own at this moment, asked by a person (their reports queue
 * in their turn, not the background's), told like any slot (cool-down included).
 */
export async function evaluateNow(deps: NotifyDeps, ruleId: string, owner: string): Promise<EvaluationRecord | null> {
  const rule = await alertsRepo(deps.db).get(ruleId);
  if (!rule) return null;
  refuseStopped(await ruleStop(deps.db, rule), "alert rule");
  // Counted per person asking, before anything runs: a burst of presses is refused, not queued.
  await takeRunNow(deps.db, owner, policyOf(deps));
  const now = new Date();
  return evaluateRule(
    {
      db: deps.db,
      gateway: deps.gateway,
      timeZone: deps.env.REPORT_TIMEZONE,
      monitor: deps.monitor ?? monitorConfig(),
      mail: deps.mail,
      waitMs: deps.waitMs ?? 60_000,
      baseUrl: deps.env.NEXTAUTH_URL,
      owner,
      policy: policyOf(deps),
    },
    rule,
    now,
    false,
    now,
  );
}

/**
 * "Send now" on a scheduled report: its next issue at this moment, through the scheduler's own path
 * (the owner's rights checked now, the mail policy, the outbox), in the turn of the person who asked.
 * The regular schedule does not move: no slot is claimed and the subscription is not changed.
 */
export async function sendSubscriptionNow(deps: NotifyDeps, user: SessionUser, id: string): Promise<{ inbox: number; emails: number }> {
  const sub = await ownSubscription(deps.db, user, id);
  refuseStopped(await subscriptionStop(deps.db, sub), "scheduled report");
  // Counted per person asking, before anything runs: a burst of presses is refused, not queued.
  await takeSendNow(deps.db, user.id, policyOf(deps));
  try {
    return await sendSubscription(
      { db: deps.db, gateway: deps.gateway, timeZone: deps.env.REPORT_TIMEZONE, secret: deps.env.NEXTAUTH_SECRET, baseUrl: deps.env.NEXTAUTH_URL, mail: deps.mail, waitMs: deps.waitMs ?? 60_000, policy: policyOf(deps), owner: user.id, pdf: pdfOf(deps) },
      sub,
      false,
      { by: user },
    );
  } catch (e) {
    // The owner's daily mail is a limit the caller met: said as itself, nothing queued.
    if (e instanceof MailLimitError) throw new ApiError(429, e.message);
    throw e;
  }
}

/** One e-mail of a preview: as it would be sent, its share token hidden. */
export type PreviewMail = Omit<IssueMail, "attachments"> & { attachments: { filename: string; contentType: string; bytes: number }[] };

export type SubscriptionPreview =
  | { kind: "ready"; mails: PreviewMail[]; inboxUsers: number; refused: string | null; mailOn: boolean }
  | IssuePending;

/** How long a preview waits for the report before answering with its place in the queue. */
const PREVIEW_WAIT_MS = 3_000;

/**
 * The next issue's e-mails as "Send now" would send them, built by the same code, sending nothing
 * and spending no mail allowance. Its report queues like any report the person opens; while it waits
 * the answer says where. The share token is hidden: the preview is no way to get the link.
 */
export async function previewSubscription(deps: NotifyDeps, user: SessionUser, id: string): Promise<SubscriptionPreview> {
  const sub = await ownSubscription(deps.db, user, id);
  const built = await buildSubscriptionIssue(
    { db: deps.db, gateway: deps.gateway, timeZone: deps.env.REPORT_TIMEZONE, secret: deps.env.NEXTAUTH_SECRET, baseUrl: deps.env.NEXTAUTH_URL, waitMs: PREVIEW_WAIT_MS, policy: policyOf(deps), owner: user.id },
    sub,
    false,
  );
  if (built.kind === "pending") return built;
  const token = sub.shareTokenSealed ? unseal(sub.shareTokenSealed, deps.env.NEXTAUTH_SECRET) : null;
  const hide = (text: string) => (token ? text.split(token).join(hiddenToken(token)) : text);
  return {
    kind: "ready",
    mails: built.issue.mails.map((m) => ({
      audience: m.audience,
      to: m.to,
      subject: hide(m.subject),
      text: hide(m.text),
      html: hide(m.html),
      numbers: m.numbers,
      attachments: m.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, bytes: a.encoding === "base64" ? Buffer.from(a.content, "base64").length : Buffer.byteLength(a.content) })),
    })),
    inboxUsers: built.issue.inbox.userIds.length,
    refused: built.issue.refused,
    mailOn: deps.mail.enabled,
  };
}

/** A share token as a preview shows it: its last characters only, as the report's list of links names it. */
export const hiddenToken = (token: string) => `…${token.slice(-TOKEN_TAIL_LENGTH)}`;

const policyOf = (deps: NotifyDeps): MailPolicy => deps.policy ?? mailPolicyFrom(serverEnv());

/** The mail policy of this process's environment, for routes. */
export function mailPolicy(): MailPolicy {
  return mailPolicyFrom(serverEnv());
}

/** The process's notify dependencies, for routes that run a rule now. */
export async function notifyDeps(): Promise<NotifyDeps> {
  const env = serverEnv();
  const policy = mailPolicyFrom(env);
  return { db: await getStore(), gateway: getGateway(), env, mail: mailQueue(mailConfigFrom(env).enabled, policy), waitMs: 60_000, policy };
}
