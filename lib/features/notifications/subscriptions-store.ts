/** Scheduled reports: a saved report or dashboard mailed on a schedule. */
import type { Sql } from "@/lib/core/store/sql";
import { scheduledItemFields, scheduledItemsRepo, type ScheduledItemColumns } from "./scheduled-items-store";
import type { Subscription } from "./model";

interface Row extends ScheduledItemColumns {
  report_id: string;
  report_name: string;
  report_page: string;
  share_link_id: string | null;
  share_token_sealed: string | null;
  formats: string[] | string;
}

const toRow = (r: Row): Subscription => ({
  ...scheduledItemFields(r),
  reportId: r.report_id,
  reportName: r.report_name,
  reportPage: r.report_page,
  shareLinkId: r.share_link_id,
  shareTokenSealed: r.share_token_sealed,
  formats: typeof r.formats === "string" ? (JSON.parse(r.formats) as string[]) : r.formats,
});

const TABLE = {
  table: "subscriptions",
  alias: "s",
  select: `SELECT s.*, u.email AS owner_email, r.name AS report_name, r.page AS report_page
  FROM subscriptions s JOIN users u ON u.id = s.owner_id JOIN saved_reports r ON r.id = s.report_id`,
} as const;

export function subscriptionsRepo(db: Sql) {
  const items = scheduledItemsRepo(db, TABLE, toRow);
  return {
    ...items,
    async create(input: { ownerId: string; reportId: string; schedule: unknown; recipients: unknown; paused: boolean; shareLinkId: string | null; shareTokenSealed: string | null; formats: readonly string[] }): Promise<Subscription> {
      const rows = await db.query<{ id: string }>(
        "INSERT INTO subscriptions (owner_id, report_id, schedule, recipients, paused, share_link_id, share_token_sealed, formats) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        [input.ownerId, input.reportId, JSON.stringify(input.schedule), JSON.stringify(input.recipients), input.paused, input.shareLinkId, input.shareTokenSealed, JSON.stringify(input.formats)],
      );
      return (await items.get(rows[0]!.id))!;
    },
    async update(id: string, patch: { schedule: unknown; recipients: unknown; paused: boolean; formats: readonly string[] }): Promise<Subscription | null> {
      await db.query("UPDATE subscriptions SET schedule = $2, recipients = $3, paused = $4, paused_reason = CASE WHEN $4::boolean THEN paused_reason END, formats = $5, updated_at = now() WHERE id = $1", [
        id,
        JSON.stringify(patch.schedule),
        JSON.stringify(patch.recipients),
        patch.paused,
        JSON.stringify(patch.formats),
      ]);
      return items.get(id);
    },
    /** The subscriptions whose e-mails carry this share link. */
    async idsUsingLink(linkId: string): Promise<string[]> {
      const rows = await db.query<{ id: string }>("SELECT id FROM subscriptions WHERE share_link_id = $1 ORDER BY id", [linkId]);
      return rows.map((r) => r.id);
    },
    /** The link's token as the subscription keeps it (sealed), after the link was given a new one. */
    async setSealedToken(id: string, sealed: string): Promise<void> {
      await db.query("UPDATE subscriptions SET share_token_sealed = $2, updated_at = now() WHERE id = $1", [id, sealed]);
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
    /** Gives a subscription made without a share link the link its e-mails now carry. */
    async attachLink(id: string, link: { id: string; sealed: string }): Promise<void> {
      await db.query("UPDATE subscriptions SET share_link_id = $2, share_token_sealed = $3, updated_at = now() WHERE id = $1", [id, link.id, link.sealed]);
    },
  };
}
