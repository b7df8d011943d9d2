/**
 * The audit log's rows: appended, read with filters, and pruned past the retention. There is no
 * update and no other delete; the table refuses them itself (migration 12), so a bug elsewhere
 * cannot rewrite history either.
 */
import { fromJson, type Sql } from "./sql";

export type AuditActorKind = "user" | "anonymous" | "cli" | "system";

/** A value kept in an entry's detail: what changed, never a secret. */
export type AuditDetailValue = string | number | boolean | null | readonly string[];

export interface AuditRowInput {
  action: string;
  actorKind: AuditActorKind;
  actorId: string | null;
  actorEmail: string | null;
  actorAddress: string | null;
  subjectKind: string | null;
  subjectId: string | null;
  subjectLabel: string | null;
  detail: Record<string, AuditDetailValue>;
  reason: string | null;
  /** Tests and imports only; the database's clock otherwise. */
  at?: Date;
}

/** An entry as stored: what was appended, with its id and the time it was written. */
export type AuditEntry = Omit<AuditRowInput, "at"> & { id: string; at: Date };

export interface AuditFilter {
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
  /** Exact actions, e.g. "user.disabled"; or a kind's prefix with a dot, e.g. "user.". */
  actions?: readonly string[];
  /** Part of the actor's e-mail, any case. */
  actor?: string;
  /** Part of the subject's id or label, any case. */
  subject?: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next: string | null;
}

interface AuditRow {
  id: string | number;
  at: Date;
  action: string;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_email: string | null;
  actor_address: string | null;
  subject_kind: string | null;
  subject_id: string | null;
  subject_label: string | null;
  detail: unknown;
  reason: string | null;
}

const COLUMNS = "id, at, action, actor_kind, actor_id, actor_email, actor_address, subject_kind, subject_id, subject_label, detail, reason";

function toEntry(r: AuditRow): AuditEntry {
  return {
    id: String(r.id),
    at: r.at,
    action: r.action,
    actorKind: r.actor_kind,
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    actorAddress: r.actor_address,
    subjectKind: r.subject_kind,
    subjectId: r.subject_id,
    subjectLabel: r.subject_label,
    detail: fromJson<Record<string, AuditDetailValue>>(r.detail) ?? {},
    reason: r.reason,
  };
}

/** `%` and `_` in a filter are text, not patterns. */
function likeText(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function where(filter: AuditFilter, params: unknown[]): string {
  const clauses: string[] = [];
  const bind = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (filter.from) clauses.push(`at >= ${bind(filter.from)}`);
  if (filter.to) clauses.push(`at < ${bind(filter.to)}`);
  if (filter.actions && filter.actions.length > 0) {
    const exact = filter.actions.filter((a) => !a.endsWith("."));
    const prefixes = filter.actions.filter((a) => a.endsWith("."));
    const any = [
      ...(exact.length > 0 ? [`action = ANY(${bind(exact)}::text[])`] : []),
      ...prefixes.map((p) => `starts_with(action, ${bind(p)})`),
    ];
    clauses.push(`(${any.join(" OR ")})`);
  }
  if (filter.actor) clauses.push(`actor_email ILIKE ${bind(likeText(filter.actor))}`);
  if (filter.subject) {
    const p = bind(likeText(filter.subject));
    clauses.push(`(subject_id ILIKE ${p} OR subject_label ILIKE ${p})`);
  }
  return clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "";
}

export const AUDIT_PAGE_MAX = 500;

export function auditRepo(db: Sql) {
  return {
    async append(input: AuditRowInput): Promise<AuditEntry> {
      const rows = await db.query<AuditRow>(
        `INSERT INTO audit_log (at, action, actor_kind, actor_id, actor_email, actor_address, subject_kind, subject_id, subject_label, detail, reason)
         VALUES (COALESCE($1::timestamptz, now()), $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11) RETURNING ${COLUMNS}`,
        [
          input.at ?? null,
          input.action,
          input.actorKind,
          input.actorId,
          input.actorEmail,
          input.actorAddress,
          input.subjectKind,
          input.subjectId,
          input.subjectLabel,
          JSON.stringify(input.detail),
          input.reason,
        ],
      );
      return toEntry(rows[0]!);
    },

    /**
     * Newest first, `limit` at a time; `before` is the previous page's `next` (an entry id: ids grow
     * with time within one database, and ties in `at` are broken by id).
     */
    async list(filter: AuditFilter = {}, page: { limit?: number; before?: string } = {}): Promise<AuditPage> {
      const limit = Math.min(Math.max(1, Math.trunc(page.limit ?? 100)), AUDIT_PAGE_MAX);
      const params: unknown[] = [];
      let clause = where(filter, params);
      if (page.before !== undefined && /^\d{1,18}$/.test(page.before)) {
        params.push(page.before);
        clause += `${clause ? " AND" : "WHERE"} id < $${params.length}::bigint`;
      }
      params.push(limit + 1);
      const rows = await db.query<AuditRow>(`SELECT ${COLUMNS} FROM audit_log ${clause} ORDER BY id DESC LIMIT $${params.length}`, params);
      const entries = rows.slice(0, limit).map(toEntry);
      return { entries, next: rows.length > limit ? (entries.at(-1)?.id ?? null) : null };
    },

    /** How many entries the filter matches, and the oldest entry kept (of all). */
    async summary(filter: AuditFilter = {}): Promise<{ matching: number; oldest: Date | null }> {
      const params: unknown[] = [];
      const rows = await db.query<{ matching: string | number; oldest: Date | null }>(
        `SELECT (SELECT count(*) FROM audit_log ${where(filter, params)}) AS matching, (SELECT min(at) FROM audit_log) AS oldest`,
        params,
      );
      return { matching: Number(rows[0]?.matching ?? 0), oldest: rows[0]?.oldest ?? null };
    },

    /**
     * Deletes the entries older than `cutoff` and returns how many: the one delete the table allows,
     * marked for this transaction only. Must run inside a transaction (`set_config(..., true)`).
     */
    async pruneOlderThan(cutoff: Date): Promise<number> {
      await db.query("SELECT set_config('audit.pruning', 'on', true)");
      const rows = await db.query<{ n: string | number }>(
        "WITH gone AS (DELETE FROM audit_log WHERE at < $1 RETURNING 1) SELECT count(*) AS n FROM gone",
        [cutoff],
      );
      await db.query("SELECT set_config('audit.pruning', 'off', true)");
      return Number(rows[0]?.n ?? 0);
    },
  };
}

