/**
 * The audit log's rows: appended, read with filters, and pruned past the retention. There is no
 * update and no other delete; the table refuses them itself (migration 12), so a bug elsewhere
 * cannot rewrite history either.
 *
 * Failed sign-ins are not one row each: anyone can send them, so they are counted per address in
 * `audit_failure_tallies` (one row per address, at most TALLY_ADDRESSES of them, then one for all
 * further addresses) and each tally becomes one entry at the first failure after its window has
 * passed or when the log is read, whichever comes first (`closeTallies`). Anonymous traffic adds at most TALLY_ADDRESSES + 1 entries per window.
 */
import { fromJson, type Sql } from "@/lib/core/store/sql";

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

/** Why a sign-in failed, as a tally counts it (a column each). */
const SIGN_IN_FAILURES = [
  "malformed",
  "throttled",
  "unknown_account",
  "wrong_password",
  "disabled",
  "sso_only",
  "company_account",
  "sso_no_group",
  "sso_no_email",
  "sso_email_unverified",
  "sso_email_taken",
  "sso_disabled",
  "sso_callback",
] as const;
export type SignInFailure = (typeof SIGN_IN_FAILURES)[number];

/** The reasons of company sign-in (and of a password for an account that signs in through it): in an entry only when counted. */
const COMPANY_FAILURES = SIGN_IN_FAILURES.slice(SIGN_IN_FAILURES.indexOf("company_account"));

/** Addresses counted apart in one window; failures from further addresses share one tally. */
export const TALLY_ADDRESSES = 100;
/** The tally of the addresses past TALLY_ADDRESSES, and of requests with no address (no trusted proxy). */
const MANY = "*";
const NONE = "";
/** The distinct e-mails a tally names; past this many it says "and more". */
const TALLY_EMAILS = 50;

/**
 * Counts one failed sign-in in its address's open tally (opened now when there is none). An open
 * tally older than `windowSeconds` is closed first (an entry of its own).
 */
async function countFailure(db: Sql, f: { address: string | null; email: string | null; why: SignInFailure; now: Date; windowSeconds: number }): Promise<void> {
  // The reason names a column: only these.
  if (!SIGN_IN_FAILURES.includes(f.why)) throw new Error(`no tally column for ${String(f.why)}`);
  await closeTallies(db, new Date(f.now.getTime() - f.windowSeconds * 1000));
  let address = f.address === null || f.address === "" ? NONE : f.address;
  if (address !== NONE) {
    const rows = await db.query<{ own: boolean; open: number }>(
      "SELECT bool_or(address = $1) AS own, count(*)::int AS open FROM audit_failure_tallies WHERE address NOT IN ('', '*')",
      [address],
    );
    if (!rows[0]?.own && (rows[0]?.open ?? 0) >= TALLY_ADDRESSES) address = MANY;
  }
  const email = f.email === null || f.email === "" ? null : f.email.slice(0, 320);
  await db.query(
    `INSERT INTO audit_failure_tallies AS t (address, window_start, last_at, ${f.why}, emails)
     VALUES ($1, $2, $2, 1, CASE WHEN $3::text IS NULL THEN '{}'::text[] ELSE ARRAY[$3::text] END)
     ON CONFLICT (address) DO UPDATE SET
       last_at = GREATEST(t.last_at, EXCLUDED.last_at),
       ${f.why} = t.${f.why} + 1,
       emails = CASE WHEN $3::text IS NULL OR $3::text = ANY(t.emails) OR cardinality(t.emails) >= $4 THEN t.emails ELSE t.emails || $3::text END,
       more_emails = t.more_emails OR ($3::text IS NOT NULL AND NOT ($3::text = ANY(t.emails)) AND cardinality(t.emails) >= $4)`,
    [address, f.now, email, TALLY_EMAILS],
  );
}

/**
 * Turns the tallies opened at or before `openedBy` (all of them when null) into one audit entry each,
 * in one statement: each failure is in exactly one entry however many processes close at once.
 */
async function closeTallies(db: Sql, openedBy: Date | null): Promise<number> {
  const stamp = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || ' UTC'`;
  const total = `(${SIGN_IN_FAILURES.join(" + ")})`;
  const accounts = "(cardinality(emails)::text || CASE WHEN more_emails THEN '+' ELSE '' END)";
  const rows = await db.query<{ n: string | number }>(
    `WITH gone AS (
       DELETE FROM audit_failure_tallies WHERE $1::timestamptz IS NULL OR window_start <= $1 RETURNING *
     ), added AS (
       INSERT INTO audit_log (action, actor_kind, actor_email, actor_address, detail)
       SELECT 'sign_in.failed', 'anonymous',
         CASE WHEN cardinality(emails) = 1 AND NOT more_emails THEN emails[1] END,
         CASE WHEN address IN ('', '*') THEN NULL ELSE address END,
         jsonb_build_object(
           'summary', format('%s failed sign-in%s for %s e-mail address%s from %s between %s and %s',
             ${total}, CASE WHEN ${total} = 1 THEN '' ELSE 's' END, ${accounts}, CASE WHEN cardinality(emails) = 1 AND NOT more_emails THEN '' ELSE 'es' END,
             CASE address WHEN '' THEN 'unknown addresses' WHEN '*' THEN 'further addresses' ELSE address END,
             ${stamp("window_start")}, ${stamp("last_at")}),
           'failures', ${total}, 'wrong_password', wrong_password, 'unknown_account', unknown_account,
           'disabled', disabled, 'malformed', malformed, 'throttled', throttled, 'sso_only', sso_only,
           'emails', to_jsonb(emails[1:10]))
         -- Company sign-in's counts only where there are any: most tallies are passwords alone.
         || jsonb_strip_nulls(jsonb_build_object(${COMPANY_FAILURES.map((c) => `'${c}', NULLIF(${c}, 0)`).join(", ")}))
       FROM gone ORDER BY window_start
       RETURNING 1
     ) SELECT count(*) AS n FROM added`,
    [openedBy],
  );
  return Number(rows[0]?.n ?? 0);
}

export function auditRepo(db: Sql) {
  return {
    /** Counts a failed sign-in (see countFailure): no entry of its own. */
    countFailedSignIn: (f: { address: string | null; email: string | null; why: SignInFailure; now: Date; windowSeconds: number }) => countFailure(db, f),

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
      // Failed sign-ins counted so far are part of what the reader sees.
      await closeTallies(db, null);
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
      await closeTallies(db, null);
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

