/**
 * Share links of saved reports: hashed tokens, expiry, revocation, optional password, views, and what
 * tells them apart in the owner's list: an optional label and the token's last few characters.
 */
import type { ReportQuery } from "@/lib/contract/schemas";
import { fromJson, type Sql } from "@/lib/core/store/sql";
import { isUuid } from "@/lib/features/saved-reports/store";
import type { ShareLink, ShareMode } from "./model";

export interface Snapshot {
  fetched_at: string;
  start_date: string;
  end_date: string;
  data: Record<string, string | number | null>[];
  /** The compared days' answer, frozen with the report's when the report compares (absent on links made before comparisons were kept). */
  comparison?: {
    start_date: string;
    end_date: string;
    data: Record<string, string | number | null>[];
    /**
     * The compared days that held data when it was taken, when the comparison's own answer cannot
     * tell (lib/report/periods/coverage.ts): frozen with it, so the snapshot says the same coverage
     * however the data has grown since (absent on links made before coverage was kept).
     */
    data_days?: string[];
  };
  /** A dashboard's snapshot: the answers its tiles derive from, and the day they were taken. */
  dashboard?: { today: string; answers: { op: "orders" | "cohort"; query: ReportQuery; fetched_at: string; data: Record<string, string | number | null>[] }[] };
}

/** With the secrets and the snapshot, for the share page only. */
export interface ShareLinkWithSecrets extends ShareLink {
  passwordHash: string | null;
  snapshot: Snapshot | null;
}

interface Row {
  id: string;
  report_id: string;
  created_by: string;
  label: string | null;
  token_tail: string | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  password_hash: string | null;
  mode: ShareMode;
  allowed_presets: string;
  snapshot: Snapshot | string | null;
  view_count: number;
  last_viewed_at: Date | null;
}

const SELECT = `SELECT l.*, (SELECT coalesce(sum(views), 0)::int FROM share_view_days d WHERE d.link_id = l.id) AS view_count
  FROM share_links l`;

/** How long the one-row-per-view log keeps a view; the per-day counts are kept for good. */
export const VIEW_LOG_DAYS = 30;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function toLink(r: Row): ShareLinkWithSecrets {
  return {
    id: r.id,
    reportId: r.report_id,
    createdBy: r.created_by,
    label: r.label,
    tokenTail: r.token_tail,
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at)!,
    revokedAt: iso(r.revoked_at),
    hasPassword: r.password_hash !== null,
    mode: r.mode,
    allowedPresets: r.allowed_presets ? r.allowed_presets.split(",") : [],
    viewCount: r.view_count,
    lastViewedAt: iso(r.last_viewed_at),
    passwordHash: r.password_hash,
    snapshot: fromJson<Snapshot | null>(r.snapshot),
  };
}

/** The public view of a link (no hashes, no snapshot). */
export function publicLink(l: ShareLinkWithSecrets): ShareLink {
  const { passwordHash: _p, snapshot: _s, ...rest } = l;
  return rest;
}

export function shareLinksRepo(db: Sql) {
  return {
    async create(input: {
      reportId: string;
      tokenHash: string;
      tokenTail?: string | null;
      label?: string | null;
      createdBy: string;
      expiresAt: Date;
      passwordHash: string | null;
      mode: ShareMode;
      allowedPresets: string[];
      snapshot: Snapshot | null;
    }): Promise<ShareLinkWithSecrets> {
      const rows = await db.query<{ id: string }>(
        `INSERT INTO share_links (report_id, token_hash, created_by, expires_at, password_hash, mode, allowed_presets, snapshot, label, token_tail)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
        [
          input.reportId,
          input.tokenHash,
          input.createdBy,
          input.expiresAt,
          input.passwordHash,
          input.mode,
          input.allowedPresets.join(","),
          input.snapshot ? JSON.stringify(input.snapshot) : null,
          input.label ?? null,
          input.tokenTail ?? null,
        ],
      );
      return (await this.get(rows[0]!.id))!;
    },
    async get(id: string): Promise<ShareLinkWithSecrets | null> {
      if (!isUuid(id)) return null;
      const rows = await db.query<Row>(`${SELECT} WHERE l.id = $1`, [id]);
      return rows[0] ? toLink(rows[0]) : null;
    },
    async findByTokenHash(tokenHash: string): Promise<ShareLinkWithSecrets | null> {
      const rows = await db.query<Row>(`${SELECT} WHERE l.token_hash = $1`, [tokenHash]);
      return rows[0] ? toLink(rows[0]) : null;
    },
    async listForReport(reportId: string): Promise<ShareLinkWithSecrets[]> {
      const rows = await db.query<Row>(`${SELECT} WHERE l.report_id = $1 ORDER BY l.created_at DESC`, [reportId]);
      return rows.map(toLink);
    },
    /** Reports behind live links that still open and were viewed since `since`, most recently viewed first. */
    async reportsViewedSince(since: Date, now = new Date()): Promise<string[]> {
      const rows = await db.query<{ report_id: string }>(
        `SELECT report_id FROM share_links
          WHERE mode = 'live' AND revoked_at IS NULL AND expires_at > $2 AND last_viewed_at >= $1
          GROUP BY report_id ORDER BY max(last_viewed_at) DESC`,
        [since, now],
      );
      return rows.map((r) => r.report_id);
    },
    async revoke(id: string): Promise<void> {
      await db.query("UPDATE share_links SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1", [id]);
    },
    /** A new token for the same link; the old one stops working at once. */
    async rotate(id: string, tokenHash: string, tokenTail: string | null = null): Promise<void> {
      await db.query("UPDATE share_links SET token_hash = $2, token_tail = $3 WHERE id = $1", [id, tokenHash, tokenTail]);
    },
    /** One view: counted for its day for good, logged (hashed address) for VIEW_LOG_DAYS days. */
    async recordView(id: string, addressHash: string, now = new Date()): Promise<void> {
      await db.query("INSERT INTO share_views (link_id, address_hash, viewed_at) VALUES ($1, $2, $3)", [id, addressHash, now]);
      await db.query(
        `INSERT INTO share_view_days (link_id, day, views) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, 1)
         ON CONFLICT (link_id, day) DO UPDATE SET views = share_view_days.views + 1`,
        [id, now],
      );
      await db.query("UPDATE share_links SET last_viewed_at = GREATEST(last_viewed_at, $2) WHERE id = $1", [id, now]);
      await db.query("DELETE FROM share_views WHERE link_id = $1 AND viewed_at < $2", [id, new Date(now.getTime() - VIEW_LOG_DAYS * 86_400_000)]);
    },
  };
}
