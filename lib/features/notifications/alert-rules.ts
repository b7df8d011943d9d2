import "server-only";
/**
 * Alert rules for the API and the pages: analysts create them; owners see, pause, edit and delete
 * theirs, admins everyone's; each with its recent evaluations and its mail's fate (failed sends,
 * addresses the mail server refused for good).
 */
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { appendAudit, changedFields, inTransaction, userActor } from "@/lib/core/audit/log";
import { ApiError } from "@/lib/contract/errors";
import type { MonitorConfig } from "@/lib/features/monitor/definitions";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import type { AlertRule, AlertEvaluation } from "@/lib/features/notifications/model";
import type { Sql, Store } from "@/lib/core/store/sql";
import { checkRecipients, mailFate } from "@/lib/features/notifications/recipients";
import { checkCooldown, checkMailPolicy, checkOwnedCount, type MailPolicy } from "@/lib/features/notifications/policy";
import { newOwner, refuseStopped, ruleStop } from "@/lib/features/notifications/rights";
import type { Bounce, MailStatus } from "@/lib/core/mail/model";
import { AlertRuleInput, AlertRulePatch, type AlertDefinition } from "./definition";

export { AlertRuleInput, AlertRulePatch };

export interface AlertRuleView extends AlertRule {
  evaluations: AlertEvaluation[];
  /** What became of its latest e-mails (sent, waiting for a retry, failed), and addresses refused for good. */
  mail: MailStatus[];
  bounces: Bounce[];
}


function checkProgramme(def: AlertDefinition, monitor: MonitorConfig): void {
  if (def.target.kind === "programme" && !monitor.programs.some((p) => p.id === (def.target.kind === "programme" ? def.target.programme : ""))) {
    throw ApiError.badRequest(`“${def.target.programme}” is not a programme of the Monitor (${monitor.programs.map((p) => p.id).join(", ")})`, [
      { path: "definition.target.programme", message: "unknown programme" },
    ]);
  }
}

async function ownRule(db: Sql, user: SessionUser, id: string): Promise<AlertRule> {
  const rule = await alertsRepo(db).get(id);
  // Not yours answers as missing: ids are no way to probe for others' rules.
  if (!rule || (user.role !== "admin" && rule.ownerId !== user.id)) throw new ApiError(404, "No such alert rule");
  return rule;
}

export async function listAlertRules(db: Sql, user: SessionUser): Promise<AlertRuleView[]> {
  const repo = alertsRepo(db);
  const rules = await repo.list(user.role === "admin" ? null : user.id);
  return Promise.all(rules.map(async (r) => ({ ...r, evaluations: await repo.evaluations(r.id, 10), ...(await mailFate(db, "alert", r.id, r.recipients)) })));
}

export async function getAlertRule(db: Sql, user: SessionUser, id: string): Promise<AlertRuleView> {
  const rule = await ownRule(db, user, id);
  return { ...rule, evaluations: await alertsRepo(db).evaluations(rule.id, 50), ...(await mailFate(db, "alert", rule.id, rule.recipients)) };
}

export async function createAlertRule(db: Store, user: SessionUser, input: AlertRuleInput, monitor: MonitorConfig, policy: MailPolicy): Promise<AlertRule> {
  checkProgramme(input.definition, monitor);
  await checkRecipients(db, input.recipients, { requireOne: false });
  await checkMailPolicy(db, input.recipients, policy);
  checkCooldown(input.cooldown_minutes, policy);
  return db.transaction(async (tx) => {
    await checkOwnedCount(tx, user.id, "alert", policy);
    const row = await alertsRepo(tx).create({
      ownerId: user.id,
      name: input.name,
      definition: input.definition,
      schedule: input.schedule,
      recipients: input.recipients,
      cooldownMinutes: input.cooldown_minutes,
      paused: input.paused,
    });
    await appendAudit(tx, { action: "alert_rule.created", actor: userActor(user), subject: { kind: "alert_rule", id: row.id, label: row.name }, detail: { paused: row.paused } });
    return row;
  });
}

export async function updateAlertRule(db: Store, user: SessionUser, id: string, patch: AlertRulePatch, monitor: MonitorConfig, policy: MailPolicy): Promise<AlertRule> {
  let rule = await ownRule(db, user, id);
  if (patch.owner_id !== undefined && patch.owner_id !== rule.ownerId) {
    const to = await newOwner(db, user, patch.owner_id);
    await db.transaction(async (tx) => {
      await checkOwnedCount(tx, to.id, "alert", policy);
      await alertsRepo(tx).reassign(rule.id, to.id);
      await appendAudit(tx, { action: "alert_rule.changed", actor: userActor(user), subject: { kind: "alert_rule", id: rule.id, label: rule.name }, detail: { from_owner: rule.ownerId, owner: to.id } });
    });
    rule = (await alertsRepo(db).get(rule.id))!;
  }
  const merged = AlertRuleInput.parse({
    name: patch.name ?? rule.name,
    definition: patch.definition ?? rule.definition,
    schedule: patch.schedule ?? rule.schedule,
    recipients: patch.recipients ?? rule.recipients,
    cooldown_minutes: patch.cooldown_minutes ?? rule.cooldownMinutes,
    paused: patch.paused ?? rule.paused,
  });
  checkProgramme(merged.definition, monitor);
  // Resuming runs it with its owner's rights as they are now.
  if (!merged.paused && rule.paused) refuseStopped(await ruleStop(db, rule), "alert rule");
  if (patch.cooldown_minutes !== undefined) checkCooldown(merged.cooldown_minutes, policy);
  if (patch.recipients) {
    await checkRecipients(db, merged.recipients, { requireOne: false });
    await checkMailPolicy(db, merged.recipients, policy);
  }
  return inTransaction(db, async (tx) => {
    const row = (await alertsRepo(tx).update(rule.id, {
      name: merged.name,
      definition: merged.definition,
      schedule: merged.schedule,
      recipients: merged.recipients,
      cooldownMinutes: merged.cooldown_minutes,
      paused: merged.paused,
    }))!;
    const fields = changedFields({ ...patch, owner_id: undefined });
    if (fields.length > 0) await appendAudit(tx, { action: "alert_rule.changed", actor: userActor(user), subject: { kind: "alert_rule", id: rule.id, label: row.name }, detail: { fields } });
    return row;
  });
}

export async function deleteAlertRule(db: Sql, user: SessionUser, id: string): Promise<{ deleted: string }> {
  const rule = await ownRule(db, user, id);
  await inTransaction(db, async (tx) => {
    await alertsRepo(tx).remove(rule.id);
    await appendAudit(tx, { action: "alert_rule.deleted", actor: userActor(user), subject: { kind: "alert_rule", id: rule.id, label: rule.name } });
  });
  return { deleted: rule.id };
}
