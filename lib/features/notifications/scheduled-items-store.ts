/**
 * What alert rules and scheduled reports share in the store: each has an owner, a schedule, its
 * recipients, a pause (with the reason when its owner did not choose it, lib/features/notifications/rights.ts)
 * and its times; each is read joined with its owner's e-mail, listed per owner or for everyone, paused
 * for a reason and deleted the same way. Their own columns and changes stay in their repos.
 */
import { fromJson, type Sql } from "@/lib/core/store/sql";
import { isUuid } from "@/lib/features/saved-reports/store";
import type { ScheduledAutomation } from "./model";

/** The shared columns as the database returns them. */
export interface ScheduledItemColumns {
  id: string;
  owner_id: string;
  owner_email: string;
  schedule: unknown;
  recipients: unknown;
  paused: boolean;
  paused_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export const scheduledItemFields = (r: ScheduledItemColumns): ScheduledAutomation => ({
  id: r.id,
  ownerId: r.owner_id,
  ownerEmail: r.owner_email,
  schedule: fromJson(r.schedule),
  recipients: fromJson(r.recipients),
  paused: r.paused,
  pausedReason: r.paused_reason ?? null,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** The two tables, each with the query that reads its rows (aliased `alias`, joined with the owner). */
interface ScheduledTable {
  table: "alert_rules" | "subscriptions";
  alias: "a" | "s";
  select: string;
}

/** Reading, pausing for a reason and deleting, the same for rules and subscriptions. */
export function scheduledItemsRepo<C extends ScheduledItemColumns, R>(db: Sql, { table, alias, select }: ScheduledTable, toRow: (c: C) => R) {
  return {
    async get(id: string): Promise<R | null> {
      if (!isUuid(id)) return null;
      const rows = await db.query<C>(`${select} WHERE ${alias}.id = $1`, [id]);
      return rows[0] ? toRow(rows[0]) : null;
    },
    /** An owner's, or everyone's (admins, and the scheduler), oldest first. */
    async list(ownerId: string | null): Promise<R[]> {
      const rows = ownerId
        ? await db.query<C>(`${select} WHERE ${alias}.owner_id = $1 ORDER BY ${alias}.created_at`, [ownerId])
        : await db.query<C>(`${select} ORDER BY ${alias}.created_at`);
      return rows.map(toRow);
    },
    /** Pauses it for a reason its owner did not choose (the owner's rights); its last change stays. */
    async pauseFor(id: string, reason: string): Promise<void> {
      await db.query(`UPDATE ${table} SET paused = true, paused_reason = $2 WHERE id = $1`, [id, reason]);
    },
    async remove(id: string): Promise<boolean> {
      if (!isUuid(id)) return false;
      return (await db.query(`DELETE FROM ${table} WHERE id = $1 RETURNING id`, [id])).length > 0;
    },
  };
}
