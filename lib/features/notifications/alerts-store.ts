/** Alert rules, their per-group states and their evaluations. Definitions are JSON validated by lib/alerts. */
import { fromJson, type Sql } from "@/lib/core/store/sql";
import { scheduledItemFields, scheduledItemsRepo, type ScheduledItemColumns } from "./scheduled-items-store";
import type { AlertEvaluation, AlertRule } from "./model";

interface Row extends ScheduledItemColumns {
  name: string;
  definition: unknown;
  cooldown_minutes: number;
}

const toRule = (r: Row): AlertRule => ({
  ...scheduledItemFields(r),
  name: r.name,
  definition: fromJson(r.definition),
  cooldownMinutes: r.cooldown_minutes,
});

const TABLE = { table: "alert_rules", alias: "a", select: `SELECT a.*, u.email AS owner_email FROM alert_rules a JOIN users u ON u.id = a.owner_id` } as const;

export interface AlertStateRow {
  groupKey: string;
  firing: boolean;
  since: Date;
  lastNotifiedAt: Date | null;
}

export function alertsRepo(db: Sql) {
  const items = scheduledItemsRepo(db, TABLE, toRule);
  return {
    ...items,
    async create(input: { ownerId: string; name: string; definition: unknown; schedule: unknown; recipients: unknown; cooldownMinutes: number; paused: boolean }): Promise<AlertRule> {
      const rows = await db.query<{ id: string }>(
        "INSERT INTO alert_rules (owner_id, name, definition, schedule, recipients, cooldown_minutes, paused) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        [input.ownerId, input.name, JSON.stringify(input.definition), JSON.stringify(input.schedule), JSON.stringify(input.recipients), input.cooldownMinutes, input.paused],
      );
      return (await items.get(rows[0]!.id))!;
    },
    async update(id: string, patch: { name: string; definition: unknown; schedule: unknown; recipients: unknown; cooldownMinutes: number; paused: boolean }): Promise<AlertRule | null> {
      await db.query(
        "UPDATE alert_rules SET name = $2, definition = $3, schedule = $4, recipients = $5, cooldown_minutes = $6, paused = $7, paused_reason = CASE WHEN $7::boolean THEN paused_reason END, updated_at = now() WHERE id = $1",
        [id, patch.name, JSON.stringify(patch.definition), JSON.stringify(patch.schedule), JSON.stringify(patch.recipients), patch.cooldownMinutes, patch.paused],
      );
      return items.get(id);
    },
    /** Gives it to another user (an admin's reassignment); it stays paused until resumed. */
    async reassign(id: string, ownerId: string): Promise<void> {
      await db.query("UPDATE alert_rules SET owner_id = $2, paused_reason = NULL, updated_at = now() WHERE id = $1", [id, ownerId]);
    },
    async states(ruleId: string): Promise<AlertStateRow[]> {
      const rows = await db.query<{ group_key: string; firing: boolean; since: Date; last_notified_at: Date | null }>(
        "SELECT group_key, firing, since, last_notified_at FROM alert_states WHERE rule_id = $1",
        [ruleId],
      );
      return rows.map((r) => ({ groupKey: r.group_key, firing: r.firing, since: new Date(r.since), lastNotifiedAt: r.last_notified_at ? new Date(r.last_notified_at) : null }));
    },
    async saveStates(ruleId: string, states: readonly AlertStateRow[]): Promise<void> {
      for (const s of states) {
        await db.query(
          `INSERT INTO alert_states (rule_id, group_key, firing, since, last_notified_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (rule_id, group_key) DO UPDATE SET firing = $3, since = $4, last_notified_at = $5`,
          [ruleId, s.groupKey, s.firing, s.since, s.lastNotifiedAt],
        );
      }
    },
    async recordEvaluation(ruleId: string, slot: Date, late: boolean, result: unknown): Promise<void> {
      await db.query("INSERT INTO alert_evaluations (rule_id, slot, late, result) VALUES ($1, $2, $3, $4)", [ruleId, slot, late, JSON.stringify(result)]);
    },
    async evaluations(ruleId: string, limit = 20): Promise<AlertEvaluation[]> {
      const rows = await db.query<{ id: string | number; slot: Date; evaluated_at: Date; late: boolean; result: unknown }>(
        "SELECT id, slot, evaluated_at, late, result FROM alert_evaluations WHERE rule_id = $1 ORDER BY evaluated_at DESC, id DESC LIMIT $2",
        [ruleId, limit],
      );
      return rows.map((r) => ({ id: Number(r.id), slot: new Date(r.slot).toISOString(), evaluatedAt: new Date(r.evaluated_at).toISOString(), late: r.late, result: fromJson(r.result) }));
    },
  };
}
