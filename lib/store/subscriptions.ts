/** Scheduled reports: a saved report or dashboard mailed on a schedule. */
import { fromJson, type Sql } from "./sql";
import { isUuid } from "./saved-reports";

export interface SubscriptionRow {
  id: string;
  ownerId: string;
  ownerEmail: string;
  reportId: string;
  reportName: string;
  reportPage: string;
  schedule: unknown;
  recipients: unknown;
  paused: boolean;
  /** Why it was paused when its owner did not pause it (lib/notifications/rights.ts), or null. */
  pausedReason: string | null;
  shareLinkId: string | null;
  shareTokenSealed: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  owner_id: string;
  owner_email: string;
  report_id: string;
  report_name: string;
  report_page: string;
  schedule: unknown;
  recipients: unknown;
  paused: boolean;
  paused_reason: string | null;
  share_link_id: string | null;
  share_token_sealed: string | null;
  created_at: Date;
  updated_at: Date;
}

const toRow = (r: Row): SubscriptionRow => ({
  id: r.id,
  ownerId: r.owner_id,
  ownerEmail: r.owner_email,
  reportId: r.report_id,
  reportName: r.report_name,
  reportPage: r.report_page,
  schedule: fromJson(r.schedule),
  recipients: fromJson(r.recipients),
  paused: r.paused,
  pausedReason: r.paused_reason ?? null,
  shareLinkId: r.share_link_id,
  shareTokenSealed: r.share_token_sealed,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

const SELECT = `SELECT s.*, u.email AS owner_email, r.name AS report_name, r.page AS report_page
  FROM subscriptions s JOIN users u ON u.id = s.owner_id JOIN saved_reports r ON r.id = s.report_id`;

export function subscriptionsRepo(db: Sql) {
  return {
    async create(input: { ownerId: string; reportId: string; schedule: unknown; recipients: unknown; paused: boolean; shareLinkId: string | null; shareTokenSealed: string | null }): Promise<SubscriptionRow> {
      const rows = await db.query<{ id: string }>(
        "INSERT INTO subscriptions (owner_id, report_id, schedule, recipients, paused, share_link_id, share_token_sealed) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        [input.ownerId, input.reportId, JSON.stringify(input.schedule), JSON.stringify(input.recipients), input.paused, input.shareLinkId, input.shareTokenSealed],
      );
      return (await this.get(rows[0]!.id))!;
    },
    async get(id: string): Promise<SubscriptionRow | null> {
      if (!isUuid(id)) return null;
      const rows = await db.query<Row>(`${SELECT} WHERE s.id = $1`, [id]);
      return rows[0] ? toRow(rows[0]) : null;
    },
    async list(ownerId: string | null): Promise<SubscriptionRow[]> {
      const rows = ownerId ? await db.query<Row>(`${SELECT} WHERE s.owner_id = $1 ORDER BY s.created_at`, [ownerId]) : await db.query<Row>(`${SELECT} ORDER BY s.created_at`);
      return rows.map(toRow);
    },
    async update(id: string, patch: { schedule: unknown; recipients: unknown; paused: boolean }): Promise<SubscriptionRow | null> {
      await db.query("UPDATE subscriptions SET schedule = $2, recipients = $3, paused = $4, paused_reason = CASE WHEN $4::boolean THEN paused_reason END, updated_at = now() WHERE id = $1", [
        id,
        JSON.stringify(patch.schedule),
        JSON.stringify(patch.recipients),
        patch.paused,
      ]);
      return this.get(id);
    },
    /** Pauses it for a reason its owner did not choose (the owner's rights); its last change stays. */
    async pauseFor(id: string, reason: string): Promise<void> {
      await db.query("UPDATE subscriptions SET paused = true, paused_reason = $2 WHERE id = $1", [id, reason]);
    },
    /** Gives it to another user with the link made under their rights (or none); it stays paused until resumed. */
    async reassign(id: string, ownerId: string, link: { id: string; sealed: string } | null): Promise<void> {
      await db.query("UPDATE subscriptions SET owner_id = $2, share_link_id = $3, share_token_sealed = $4, paused_reason = NULL, updated_at = now() WHERE id = $1", [
        id,
        ownerId,
        link?.id ?? null,
        link?.sealed ?? null,
      ]);
    },
    async remove(id: string): Promise<boolean> {
      if (!isUuid(id)) return false;
      return (await db.query("DELETE FROM subscriptions WHERE id = $1 RETURNING id", [id])).length > 0;
    },
  };
}
