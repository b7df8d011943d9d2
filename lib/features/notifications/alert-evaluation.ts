import "server-only";
/**
 * One evaluation of an alert rule for one slot: its reports fetched through the gateway at the lowest
 * priority (after every person's report, from the cache or derived when it can be), the reading, what
 * to tell, and in one transaction the groups' new states, the evaluation's record, the inbox messages
 * and the mail queued for sending. Nothing is told twice for one slot: the scheduler runs a slot once.
 */
import { todayIn } from "@/lib/contract/dates";
import type { ReportQuery, ReportRecord } from "@/lib/contract/schemas";
import { getKpi, measureFor } from "@/lib/report/metrics/kpis";
import { changeCells } from "@/lib/report/table/change";
import { isMaturing, maturingNote, measureMaturity } from "@/lib/report/metrics/maturity";
import { loadMonitor } from "@/lib/features/monitor/load";
import { previousMonth } from "@/lib/features/monitor/evaluate";
import type { MonitorConfig } from "@/lib/features/monitor/definitions";
import { serializeExplore, defaultExploreState } from "@/lib/report/state/explore";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import type { AlertRule } from "@/lib/features/notifications/model";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo, type UserWithCredentials } from "@/lib/core/auth/users";
import { BACKGROUND_OWNER, type ReportGateway } from "@/lib/core/upstream/gateway";
import { MAIL_POLICY_DEFAULTS, MailLimitError, checkDailyMail, effectiveCooldown, sendableRecipients, type MailPolicy } from "@/lib/features/notifications/policy";
import { ALERT_OUTSIDE_NOTE, splitByUser } from "@/lib/features/notifications/recipients";
import { coverageWords, partlyCovered } from "@/lib/report/periods/coverage";
import { AlertDefinition, Recipients, WINDOW_LABELS, typedFilters, windowRange } from "./definition";
import type { MailQueue } from "./mail-queue";
import { alertRequests, describeCondition, describeValue, readMeasure, readProgramme, transitions, type GroupReading, type Notice, type Reading } from "./evaluate";

export interface AlertDeps {
  db: Store;
  gateway: ReportGateway;
  timeZone: string;
  monitor: MonitorConfig;
  mail: MailQueue;
  /** How long to wait for the reports (they queue behind everyone's). */
  waitMs: number;
  /** The dashboard's public URL, for links in e-mail. */
  baseUrl: string;
  /** Whose turn its reports queue in: the background (scheduled slots) unless a person asked. */
  owner?: string;
  /** The mail policy; its minimum cool-down holds for rules made before it. */
  policy?: MailPolicy;
}

export interface EvaluationRecord {
  reading: Reading | null;
  notices: (Notice & { label: string; text: string })[];
  sent: { inbox: number; emails: number };
  /** Why e-mail that was due was not queued (the owner's daily bound), naming the limit. */
  mailWithheld?: string;
  error?: string;
}

async function fetchAll(gateway: ReportGateway, q: ReportQuery, waitMs: number, owner: string): Promise<ReportRecord[]> {
  const out = gateway.submit("orders", gateway.parse("orders", q), owner);
  if ("cached" in out) return out.cached.data;
  const job = await gateway.settle(out.job.id, waitMs);
  if (job?.status.state === "done") return job.status.result.data;
  if (job?.status.state === "failed") throw new Error(`${job.status.error.message} ${job.status.error.action}`);
  throw new Error(`The reporting service's quota stayed busy for ${Math.round(waitMs / 1000)} s; this slot was not evaluated.`);
}

/** The rule's reading as of `today`: its reports, then the numbers per group. */
export async function readRule(deps: Pick<AlertDeps, "gateway" | "monitor" | "waitMs" | "owner">, def: AlertDefinition, today: string): Promise<Reading> {
  const owner = deps.owner ?? BACKGROUND_OWNER;
  if (def.target.kind === "measure") {
    const requests = alertRequests(def, today);
    const [main, previous, coverage] = await Promise.all([
      fetchAll(deps.gateway, requests.main, deps.waitMs, owner),
      requests.previous ? fetchAll(deps.gateway, requests.previous, deps.waitMs, owner) : null,
      requests.coverage ? fetchAll(deps.gateway, requests.coverage, deps.waitMs, owner) : null,
    ]);
    return readMeasure(def, requests, main, previous, coverage);
  }
  const programme = deps.monitor.programs.find((p) => p.id === (def.target.kind === "programme" ? def.target.programme : ""));
  if (!programme) throw new Error(`The Monitor has no programme “${def.target.programme}” any more.`);
  const answer = await loadMonitor(deps.gateway, deps.monitor, today, owner, deps.waitMs);
  if (answer.kind !== "ok") throw new Error(answer.kind === "failed" ? "A Monitor report failed." : "The Monitor's reports stayed queued; this slot was not evaluated.");
  const month = today.slice(0, 7);
  return readProgramme(def, answer.rows, month, previousMonth(month), windowRange("mtd", today), programme.name);
}

/** Explore's link for what the rule watched, so a message opens the numbers it speaks of. */
export function exploreLinkFor(def: AlertDefinition, reading: Reading): string {
  if (def.target.kind === "programme") return "/monitor";
  const base = defaultExploreState("orders");
  const isKpi = getKpi(reading.measure.id) !== undefined;
  const state = {
    ...base,
    range: { start: reading.window.start, end: reading.window.end },
    groupBy: def.group_by ? [def.group_by] : [],
    metrics: isKpi ? [] : [reading.measure.id],
    kpis: isKpi ? [reading.measure.id] : [],
    filters: typedFilters(def),
    compare: def.condition.kind === "change" ? ({ kind: "previous" } as const) : ({ kind: "none" } as const),
  };
  return `/explore?${serializeExplore(state)}`;
}

const NOTICE_WORDS: Record<Notice["kind"], string> = { fired: "fired", still: "still firing", recovered: "recovered" };

export function composeAlert(rule: Pick<AlertRule, "name">, def: AlertDefinition, reading: Reading, notices: readonly Notice[], late: boolean, today?: string) {
  const byKey = new Map(reading.groups.map((g) => [g.key, g]));
  // A rate whose late events are still arriving for the window says so (lib/report/metrics/maturity.ts).
  const measure = measureFor(reading.measure.id, "orders");
  const maturity = measure ? measureMaturity(measure) : null;
  const sides = { now: isMaturing(maturity, reading.window.end, today), before: isMaturing(maturity, reading.previousWindow?.end, today) };
  // The change is worded as every table and tile words it: signed, judged only between equally mature sides.
  // And with the previous window's coverage: a partly covered one says how many of its days hold data, and its change gets no verdict.
  const covered = partlyCovered(reading.previousCoverage) ? reading.previousCoverage : null;
  const change = (g: GroupReading) => (measure && g.previous ? changeCells(measure, g.value, g.previous.value, sides, covered).map((c) => c.text).join(", ") : null);
  const lines = notices.map((n) => {
    const g = byKey.get(n.key);
    const label = g?.label ?? n.key;
    const changed = g ? change(g) : null;
    const prevWords = covered ? ` (${coverageWords(covered)})` : "";
    const text = g
      ? `${label}: ${describeValue(reading, g)}${g.previous ? `, previous period ${describeValue(reading, g.previous)}${prevWords}${changed ? `, change ${changed}` : ""}` : ""}`
      : `${label}: no records in this window`;
    return { ...n, label, text: `${text} (${NOTICE_WORDS[n.kind]})` };
  });
  const fired = notices.filter((n) => n.kind !== "recovered").length;
  const recovered = notices.length - fired;
  const counts = [fired ? `${fired} firing` : "", recovered ? `${recovered} recovered` : ""].filter(Boolean).join(", ");
  const title = `${rule.name}: ${counts}`;
  const when = `${WINDOW_LABELS[def.window]} (${reading.window.start}${reading.window.end !== reading.window.start ? ` to ${reading.window.end}` : ""})`;
  const condition = `${reading.measure.label} ${describeCondition(def.condition, reading.measure.format)}`;
  const maturing = today && maturity && sides.now ? `${reading.measure.label} is still maturing: ${maturingNote(maturity, reading.window.end, today)}` : null;
  const body = [`Condition: ${condition}, over ${when}.`, ...(maturing ? [maturing] : []), ...lines.map((l) => `- ${l.text}`), ...(late ? ["(Evaluated late: the dashboard was not running at the scheduled time.)"] : [])].join("\n");
  return { title, body, lines };
}

/**
 * Evaluates the rule for `slot` and tells what there is to tell. Throws when its reports could not be
 * had (the scheduler records the error on the slot); a reading is then not recorded as seen.
 */
export async function evaluateRule(deps: AlertDeps, rule: AlertRule, slot: Date, late: boolean, now = new Date()): Promise<EvaluationRecord> {
  const def = AlertDefinition.parse(rule.definition);
  const recipients = Recipients.parse(rule.recipients);
  const today = todayIn(deps.timeZone, slot);
  let reading: Reading;
  try {
    reading = await readRule(deps, def, today);
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    await alertsRepo(deps.db).recordEvaluation(rule.id, slot, late, { reading: null, notices: [], sent: { inbox: 0, emails: 0 }, error } satisfies EvaluationRecord);
    throw e;
  }
  return deps.db.transaction(async (tx) => {
    const repo = alertsRepo(tx);
    const before = new Map((await repo.states(rule.id)).map((s) => [s.groupKey, s]));
    const { notices, states } = transitions(reading, before, now, effectiveCooldown(rule.cooldownMinutes, deps.policy ?? MAIL_POLICY_DEFAULTS));
    await repo.saveStates(rule.id, [...states].map(([groupKey, s]) => ({ groupKey, ...s })));
    const message = composeAlert(rule, def, reading, notices, late, today);
    const sent = { inbox: 0, emails: 0 };
    let mailWithheld: string | undefined;
    if (notices.length > 0) {
      const link = exploreLinkFor(def, reading);
      // The owner is always told in the inbox; users named as recipients too.
      const userIds = [...new Set([rule.ownerId, ...recipients.users])];
      const users = new Map<string, UserWithCredentials | null>();
      for (const id of userIds) users.set(id, await usersRepo(tx).findById(id));
      // Explore is for analysts: a viewer's message links where a viewer may go (the Monitor), or nowhere.
      const viewers = new Set(userIds.filter((id) => users.get(id)?.role === "viewer"));
      const viewerLink = def.target.kind === "programme" ? link : null;
      const inbox = inboxRepo(tx);
      const base = { title: message.title, body: message.body, sourceKind: "alert", sourceId: rule.id };
      await inbox.add(userIds.filter((id) => !viewers.has(id)), { ...base, link });
      await inbox.add([...viewers], { ...base, link: viewerLink });
      sent.inbox = userIds.length;
      if (deps.mail.enabled) {
        const userEmails = recipients.users.flatMap((id) => {
          const u = users.get(id);
          return u && !u.disabled ? [u.email] : [];
        });
        const sendable = await sendableRecipients(tx, [...new Set([...userEmails, ...recipients.emails])], deps.policy ?? MAIL_POLICY_DEFAULTS);
        const to = sendable.to;
        if (sendable.refused) mailWithheld = sendable.refused;
        if (to.length > 0) {
          try {
            // Users get the link into the dashboard; outside addresses, which could only reach its sign-in page, the numbers alone.
            const { users: inApp, outside } = await splitByUser(tx, to);
            // Both audiences or neither: the daily bound is checked for all before either is queued.
            if (inApp.length > 0 && outside.length > 0) await checkDailyMail(tx, rule.ownerId, new Set(to.map((a) => a.toLowerCase())).size, deps.policy ?? MAIL_POLICY_DEFAULTS);
            const mail = { subject: `Alert: ${message.title}`, sourceKind: "alert", sourceId: rule.id, ownerId: rule.ownerId };
            if (inApp.length > 0) sent.emails += await deps.mail.enqueue(tx, { ...mail, recipients: inApp, text: `${message.body}\n\nOpen the numbers: ${new URL(link, deps.baseUrl).toString()}` });
            if (outside.length > 0) sent.emails += await deps.mail.enqueue(tx, { ...mail, recipients: outside, text: `${message.body}\n\n${ALERT_OUTSIDE_NOTE}` });
          } catch (e) {
            // Over the owner's daily mail: the inbox is still told, and the evaluation says why no mail went.
            if (!(e instanceof MailLimitError)) throw e;
            mailWithheld = [mailWithheld, e.message].filter(Boolean).join("; ");
          }
        }
      }
    }
    const record: EvaluationRecord = { reading, notices: message.lines, sent, ...(mailWithheld ? { mailWithheld } : {}) };
    await repo.recordEvaluation(rule.id, slot, late, record);
    return record;
  });
}
