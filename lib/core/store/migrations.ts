/**
 * Versioned schema changes, applied in order on first use and recorded in `schema_migrations`.
 * Append new entries (saved reports, share links, …); never edit one that has shipped.
 */
import type { Sql, Store } from "./sql";

export interface Migration {
  version: number;
  name: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "users and login attempts",
    up: `
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL UNIQUE CHECK (email = lower(email) AND email <> ''),
        password_hash text NOT NULL,
        role text NOT NULL CHECK (role IN ('admin', 'analyst', 'viewer')),
        disabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz,
        -- Sessions that signed in before this moment are void (set on disable and password change).
        sessions_valid_after timestamptz
      );
      -- Failed sign-ins, keyed "account:<email>" or "address:<ip>", for throttling.
      CREATE TABLE login_attempts (
        key text NOT NULL,
        at timestamptz NOT NULL
      );
      CREATE INDEX login_attempts_key_at ON login_attempts (key, at);
    `,
  },
  {
    version: 2,
    name: "saved reports and share links",
    up: `
      -- A saved report is a page and its URL state (lib/report/state), the whole definition.
      CREATE TABLE saved_reports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        page text NOT NULL CHECK (page IN ('explore', 'cohorts')),
        params text NOT NULL,
        shared_with_team boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX saved_reports_owner ON saved_reports (owner_id);
      -- Only a hash of each token is kept; the token itself is shown once.
      CREATE TABLE share_links (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        report_id uuid NOT NULL REFERENCES saved_reports(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        created_by uuid NOT NULL REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        password_hash text,
        mode text NOT NULL CHECK (mode IN ('live', 'snapshot')),
        allowed_presets text NOT NULL DEFAULT '',
        snapshot jsonb
      );
      CREATE INDEX share_links_report ON share_links (report_id);
      CREATE TABLE share_views (
        link_id uuid NOT NULL REFERENCES share_links(id) ON DELETE CASCADE,
        viewed_at timestamptz NOT NULL DEFAULT now(),
        address_hash text NOT NULL
      );
      CREATE INDEX share_views_link ON share_views (link_id, viewed_at);
    `,
  },
  {
    version: 3,
    name: "attempt ids and revoked sessions",
    up: `
      -- Attempts are counted before they are checked; an id lets one attempt be taken back
      -- (a success, or one refused unchecked) without touching a parallel one of the same instant.
      ALTER TABLE login_attempts ADD COLUMN id bigserial;
      CREATE INDEX login_attempts_id ON login_attempts (id);
      -- Sessions ended by signing out: their cookies stop working even if copied.
      CREATE TABLE revoked_sessions (
        session_id text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: "share views counted per day",
    up: `
      -- Views are counted per link and day for good; the one-row-per-view log keeps 30 days.
      CREATE TABLE share_view_days (
        link_id uuid NOT NULL REFERENCES share_links(id) ON DELETE CASCADE,
        day date NOT NULL,
        views integer NOT NULL,
        PRIMARY KEY (link_id, day)
      );
      INSERT INTO share_view_days (link_id, day, views)
        SELECT link_id, (viewed_at AT TIME ZONE 'UTC')::date, count(*)::int FROM share_views GROUP BY 1, 2;
      ALTER TABLE share_links ADD COLUMN last_viewed_at timestamptz;
      UPDATE share_links l SET last_viewed_at = (SELECT max(viewed_at) FROM share_views v WHERE v.link_id = l.id);
    `,
  },
  {
    version: 5,
    name: "saved monitor views",
    up: `
      -- The Monitor can be saved and shared like a report.
      ALTER TABLE saved_reports DROP CONSTRAINT saved_reports_page_check;
      ALTER TABLE saved_reports ADD CONSTRAINT saved_reports_page_check CHECK (page IN ('explore', 'cohorts', 'monitor'));
    `,
  },
  {
    version: 6,
    name: "dashboards",
    up: `
      -- A dashboard is saved, owned, shared with the team and linked like a report; its
      -- params hold every tile, so they may be longer than one report's.
      ALTER TABLE saved_reports DROP CONSTRAINT saved_reports_page_check;
      ALTER TABLE saved_reports ADD CONSTRAINT saved_reports_page_check CHECK (page IN ('explore', 'cohorts', 'monitor', 'dashboard'));
      CREATE INDEX saved_reports_page ON saved_reports (page, updated_at DESC);
    `,
  },
  {
    version: 7,
    name: "alerts, subscriptions, inbox, mail outbox and schedule claims",
    up: `
      -- Alert rules: what is watched and when (lib/alerts/definition.ts), who is told.
      CREATE TABLE alert_rules (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        definition jsonb NOT NULL,
        schedule jsonb NOT NULL,
        recipients jsonb NOT NULL,
        cooldown_minutes integer NOT NULL CHECK (cooldown_minutes BETWEEN 0 AND 10080),
        paused boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX alert_rules_owner ON alert_rules (owner_id);
      -- Per rule and group (e.g. one gateway): firing or not, and when its owner was last told.
      CREATE TABLE alert_states (
        rule_id uuid NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
        group_key text NOT NULL,
        firing boolean NOT NULL,
        since timestamptz NOT NULL,
        last_notified_at timestamptz,
        PRIMARY KEY (rule_id, group_key)
      );
      -- Every evaluation: its slot, whether it ran late, the numbers it saw, what fired and was sent.
      CREATE TABLE alert_evaluations (
        id bigserial PRIMARY KEY,
        rule_id uuid NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
        slot timestamptz NOT NULL,
        evaluated_at timestamptz NOT NULL DEFAULT now(),
        late boolean NOT NULL DEFAULT false,
        result jsonb NOT NULL
      );
      CREATE INDEX alert_evaluations_rule ON alert_evaluations (rule_id, evaluated_at DESC);
      -- Scheduled reports: a saved report or dashboard mailed on a schedule, with a share link made
      -- for it (revoked with it). The link's token is kept sealed (AES-GCM under the server secret).
      CREATE TABLE subscriptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES users(id),
        report_id uuid NOT NULL REFERENCES saved_reports(id) ON DELETE CASCADE,
        schedule jsonb NOT NULL,
        recipients jsonb NOT NULL,
        paused boolean NOT NULL DEFAULT false,
        share_link_id uuid REFERENCES share_links(id) ON DELETE SET NULL,
        share_token_sealed text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX subscriptions_owner ON subscriptions (owner_id);
      -- One row per (item, slot): whoever inserts it runs the slot, across processes and restarts.
      -- A claim whose lease ran out before it was done is taken over (its runner died).
      CREATE TABLE schedule_claims (
        kind text NOT NULL CHECK (kind IN ('alert', 'subscription')),
        item_id uuid NOT NULL,
        slot timestamptz NOT NULL,
        claimed_by text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz NOT NULL,
        done_at timestamptz,
        late boolean NOT NULL DEFAULT false,
        error text,
        PRIMARY KEY (kind, item_id, slot)
      );
      CREATE TABLE inbox_messages (
        id bigserial PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        read_at timestamptz,
        title text NOT NULL,
        body text NOT NULL,
        link text,
        source_kind text NOT NULL,
        source_id uuid
      );
      CREATE INDEX inbox_messages_user ON inbox_messages (user_id, created_at DESC);
      -- Mail waits here until sent: one row per recipient, retried with backoff, claimed with a lease.
      CREATE TABLE mail_outbox (
        id bigserial PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        recipient text NOT NULL,
        subject text NOT NULL,
        text_body text NOT NULL,
        html_body text,
        attachments jsonb NOT NULL DEFAULT '[]',
        source_kind text NOT NULL,
        source_id uuid,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_by text,
        lease_until timestamptz,
        sent_at timestamptz,
        failed_at timestamptz,
        last_error text
      );
      CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
      CREATE INDEX mail_outbox_source ON mail_outbox (source_kind, source_id, created_at DESC);
      -- Addresses the mail server refused for good, shown to the owners of rules that mail them.
      CREATE TABLE mail_bounces (
        address text PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        reason text NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: "state shared by dashboard instances",
    up: `
      -- With several dashboard instances on one PostgreSQL database, the upstream quota,
      -- the answer cache and the report jobs live here (used only when DATABASE_URL is set).
      -- Reporting calls started by any instance, for the global window (lib/core/upstream/pg-quota.ts).
      CREATE TABLE upstream_calls (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        instance text NOT NULL
      );
      CREATE INDEX upstream_calls_at ON upstream_calls (at);
      -- One row: every instance waits until this after a 429.
      CREATE TABLE upstream_pause (
        id integer PRIMARY KEY CHECK (id = 1),
        until timestamptz NOT NULL
      );
      -- Answers any instance fetched (lib/core/upstream/pg-cache.ts).
      CREATE TABLE report_cache (
        key text PRIMARY KEY,
        op text NOT NULL,
        query jsonb NOT NULL,
        -- json, not jsonb: the records come back with their fields in the order the service sent them.
        records json NOT NULL,
        bytes integer NOT NULL,
        fetched_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX report_cache_op ON report_cache (op, expires_at);
      CREATE INDEX report_cache_used ON report_cache (used_at);
      -- Report jobs as rows: any instance answers a job's status; a job whose instance stopped renewing
      -- its lease is taken over or failed (lib/core/upstream/pg-jobs.ts).
      CREATE TABLE report_jobs (
        id text PRIMARY KEY,
        key text NOT NULL,
        op text NOT NULL,
        query jsonb NOT NULL,
        owner text NOT NULL,
        instance text NOT NULL,
        status jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz NOT NULL,
        finished_at timestamptz,
        -- When any instance last answered a poll for it: its own instance keeps it while callers wait.
        polled_at timestamptz
      );
      CREATE INDEX report_jobs_key ON report_jobs (key) WHERE finished_at IS NULL;
    `,
  },
  {
    version: 9,
    name: "session change notifications",
    up: `
      -- Every statement that changes what the session check reads (users: disabled, role, e-mail,
      -- sessions voided; revoked_sessions: signing out) notifies 'session_change'. The database says
      -- so, not the code that wrote, so no write path can be missed. A PGlite store's process counts
      -- these to know when a kept session check is still exact (lib/core/auth/session-checks.ts); with
      -- PostgreSQL nobody listens and a notification costs next to nothing.
      CREATE FUNCTION notify_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('session_change', '');
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER users_session_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
        FOR EACH STATEMENT EXECUTE FUNCTION notify_session_change();
      CREATE TRIGGER revoked_sessions_session_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON revoked_sessions
        FOR EACH STATEMENT EXECUTE FUNCTION notify_session_change();
    `,
  },
  {
    version: 10,
    name: "share link labels and token tails",
    up: `
      -- What tells an owner's links apart: an optional label, and the token's last characters (the
      -- token itself is still kept only as its hash). Links made before have neither.
      ALTER TABLE share_links ADD COLUMN label text CHECK (label IS NULL OR length(label) BETWEEN 1 AND 80);
      ALTER TABLE share_links ADD COLUMN token_tail text CHECK (token_tail IS NULL OR token_tail ~ '^[A-Za-z0-9_-]{4,8}$');
    `,
  },
  {
    version: 11,
    name: "automation acts with its owner's rights",
    up: `
      -- Whose rule or subscription queued each e-mail, so a user's mail per day can be bounded and
      -- shown to admins. Mail queued before has no owner and counts against nobody.
      ALTER TABLE mail_outbox ADD COLUMN owner_id uuid REFERENCES users(id) ON DELETE SET NULL;
      CREATE INDEX mail_outbox_owner ON mail_outbox (owner_id, created_at) WHERE owner_id IS NOT NULL;
      -- Why a rule or subscription is paused when its owner did not pause it: 'owner_disabled' or
      -- 'owner_role' (the owner may no longer own it), 'report_unshared' (the owner may no longer
      -- see the report, or its link was revoked). Cleared when it is resumed.
      ALTER TABLE alert_rules ADD COLUMN paused_reason text CHECK (paused_reason IS NULL OR paused_reason IN ('owner_disabled', 'owner_role'));
      ALTER TABLE subscriptions ADD COLUMN paused_reason text
        CHECK (paused_reason IS NULL OR paused_reason IN ('owner_disabled', 'owner_role', 'report_unshared'));
    `,
  },
  {
    version: 12,
    name: "audit log",
    up: `
      -- Who did what to access and automation, and when (lib/core/audit/store.ts). Append-only: no row is
      -- ever changed, and rows are deleted only by the retention prune, which says so for its
      -- transaction (audit.pruning) and deletes only rows older than the retention it was given.
      -- The actor is kept as it was (e-mail beside the id), so an entry reads the same after the
      -- user changes; a failed sign-in has no user, only the e-mail as typed.
      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        action text NOT NULL CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
        actor_kind text NOT NULL CHECK (actor_kind IN ('user', 'anonymous', 'cli', 'system')),
        actor_id uuid,
        actor_email text CHECK (actor_email IS NULL OR length(actor_email) <= 320),
        actor_address text CHECK (actor_address IS NULL OR length(actor_address) <= 100),
        subject_kind text CHECK (subject_kind IS NULL OR subject_kind ~ '^[a-z_]+$'),
        subject_id text CHECK (subject_id IS NULL OR length(subject_id) <= 200),
        subject_label text CHECK (subject_label IS NULL OR length(subject_label) <= 400),
        detail jsonb NOT NULL DEFAULT '{}'::jsonb,
        reason text CHECK (reason IS NULL OR length(reason) <= 2000)
      );
      CREATE INDEX audit_log_at ON audit_log (at, id);
      CREATE INDEX audit_log_action_at ON audit_log (action, at);
      CREATE INDEX audit_log_actor_at ON audit_log (actor_email, at);
      CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND current_setting('audit.pruning', true) = 'on' THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
      END
      $$;
      CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
      CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
    `,
  },
  {
    version: 13,
    name: "routing permission and routing changes",
    up: `
      -- Who may change live routing besides admins (lib/features/routing/workspace.ts): a flag beside the role.
      ALTER TABLE users ADD COLUMN routing boolean NOT NULL DEFAULT false;
      -- A routing configuration change as the workspace records it: proposed against the live version
      -- it was reviewed on (base_version), then applied, rejected, or superseded when the live version
      -- moved on before it was applied. A restore carries the version it brings back instead of a
      -- configuration of its own. claimed_* mark a decision in flight, so two approvers of one change
      -- cannot both send it; a claim older than its lease is a decider that died and may be taken over.
      CREATE TABLE routing_changes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('change', 'restore')),
        base_version integer NOT NULL CHECK (base_version >= 0),
        config jsonb,
        restore_version integer CHECK (restore_version IS NULL OR restore_version >= 1),
        reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
        proposed_by uuid REFERENCES users(id) ON DELETE SET NULL,
        proposed_by_email text NOT NULL,
        proposed_at timestamptz NOT NULL DEFAULT now(),
        status text NOT NULL CHECK (status IN ('pending', 'applied', 'rejected', 'superseded')),
        decided_by uuid REFERENCES users(id) ON DELETE SET NULL,
        decided_by_email text,
        decided_at timestamptz,
        decision_reason text CHECK (decision_reason IS NULL OR length(decision_reason) <= 1000),
        applied_version integer,
        claimed_by uuid,
        claimed_until timestamptz,
        CHECK ((kind = 'change') = (config IS NOT NULL)),
        CHECK ((kind = 'restore') = (restore_version IS NOT NULL)),
        CHECK ((status = 'applied') = (applied_version IS NOT NULL)),
        CHECK ((status = 'pending') = (decided_at IS NULL))
      );
      CREATE INDEX routing_changes_pending ON routing_changes (proposed_at) WHERE status = 'pending';
      CREATE INDEX routing_changes_proposed_at ON routing_changes (proposed_at DESC);
    `,
  },
  {
    version: 14,
    name: "kept report days",
    up: `
      -- Answers the upstream gave, kept per day at the grain they were asked (lib/core/upstream/day-store.ts),
      -- so a settled day is fetched once by any instance. A shape is a report question without its
      -- dates, grouped by date; its key is the operation and the canonical shape.
      CREATE TABLE report_shapes (
        key text PRIMARY KEY,
        op text NOT NULL,
        shape jsonb NOT NULL,
        used_at timestamptz NOT NULL,
        -- When the kept settled days were last compared with the upstream's totals.
        checked_at timestamptz
      );
      CREATE INDEX report_shapes_op ON report_shapes (op);
      -- One row per shape and day, also for a day with no records (a day known to be empty).
      CREATE TABLE report_days (
        shape_key text NOT NULL REFERENCES report_shapes(key) ON DELETE CASCADE,
        day text NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
        records json NOT NULL,
        bytes integer NOT NULL CHECK (bytes >= 0),
        fetched_at timestamptz NOT NULL,
        used_at timestamptz NOT NULL,
        PRIMARY KEY (shape_key, day)
      );
      CREATE INDEX report_days_used ON report_days (used_at);
    `,
  },
  {
    version: 15,
    name: "routing approvers' standing, withdrawn changes, routing calls per user",
    up: `
      -- What makes an account a second person for the two-person rule (lib/features/routing/approval.ts):
      -- standing_since is when its password, role, routing permission or enabled state last changed
      -- (an approver's must predate the change it approves); password_set_by is the dashboard admin
      -- who last set its password (creating the account or resetting it), who therefore knows it;
      -- NULL when the users CLI or the demo seeding set it. Accounts made before start from what the
      -- audit log says of them.
      ALTER TABLE users ADD COLUMN standing_since timestamptz NOT NULL DEFAULT now();
      ALTER TABLE users ADD COLUMN password_set_by uuid REFERENCES users(id) ON DELETE SET NULL;
      UPDATE users u SET standing_since = greatest(u.created_at, coalesce(
        (SELECT max(a.at) FROM audit_log a
          WHERE a.subject_kind = 'user' AND a.subject_id = u.id::text
            AND a.action IN ('user.created', 'user.role_changed', 'user.disabled', 'user.enabled', 'user.password_reset')),
        u.created_at));
      UPDATE users u SET password_set_by = (
        SELECT a.actor_id FROM audit_log a
         WHERE a.subject_kind = 'user' AND a.subject_id = u.id::text AND a.actor_kind = 'user'
           AND a.action IN ('user.created', 'user.password_reset')
           AND EXISTS (SELECT 1 FROM users s WHERE s.id = a.actor_id)
         ORDER BY a.at DESC, a.id DESC LIMIT 1);
      -- A pending change whose possible approvers changed (or whose proposer may no longer change
      -- routing) is withdrawn, with the reason, rather than left approvable.
      ALTER TABLE routing_changes DROP CONSTRAINT routing_changes_status_check;
      ALTER TABLE routing_changes ADD CONSTRAINT routing_changes_status_check
        CHECK (status IN ('pending', 'applied', 'rejected', 'superseded', 'withdrawn'));
      -- Each user's calls to the service's routing bucket (reads, previews, validations, BIN lookups, changes),
      -- counted over a sliding window so one user's burst cannot spend the dashboard's whole bucket
      -- (lib/features/routing/allowance.ts). Rows older than the window are deleted as calls are counted.
      CREATE TABLE routing_calls (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('preview', 'validate', 'lookup', 'change', 'read')),
        bins integer NOT NULL DEFAULT 0 CHECK (bins >= 0),
        at timestamptz NOT NULL
      );
      CREATE INDEX routing_calls_user_at ON routing_calls (user_id, at);
    `,
  },
  {
    version: 16,
    name: "failed sign-ins counted per address",
    up: `
      -- Failed sign-ins counted per address and window (lib/core/audit/store.ts): anyone can send them, so
      -- each open tally becomes one audit entry when its window closes or the log is read, and the
      -- log grows by at most one entry per address and window. address '' is no known address (no
      -- trusted proxy), '*' every address past the first hundred in the window.
      CREATE TABLE audit_failure_tallies (
        address text PRIMARY KEY CHECK (length(address) <= 100),
        window_start timestamptz NOT NULL,
        last_at timestamptz NOT NULL,
        malformed integer NOT NULL DEFAULT 0,
        throttled integer NOT NULL DEFAULT 0,
        unknown_account integer NOT NULL DEFAULT 0,
        wrong_password integer NOT NULL DEFAULT 0,
        disabled integer NOT NULL DEFAULT 0,
        emails text[] NOT NULL DEFAULT '{}',
        more_emails boolean NOT NULL DEFAULT false
      );
      CREATE INDEX audit_failure_tallies_window ON audit_failure_tallies (window_start);
    `,
  },
  {
    version: 17,
    name: "scheduled reports' attachment formats",
    up: `
      -- What a scheduled report's e-mail attaches: a list of formats ('csv', 'xlsx', 'pdf'). Subscriptions
      -- made before the choice existed keep attaching the CSV they always did.
      ALTER TABLE subscriptions ADD COLUMN formats jsonb NOT NULL DEFAULT '["csv"]';
    `,
  },
  {
    version: 18,
    name: "company sign-in identities",
    up: `
      -- The identity provider's account (issuer and subject) an account signs in as with company
      -- sign-in (lib/features/users/sso.ts): one account per identity, found by it, never by e-mail alone.
      ALTER TABLE users ADD COLUMN oidc_issuer text;
      ALTER TABLE users ADD COLUMN oidc_subject text;
      ALTER TABLE users ADD CONSTRAINT users_oidc_identity UNIQUE (oidc_issuer, oidc_subject);
      ALTER TABLE users ADD CONSTRAINT users_oidc_pair CHECK ((oidc_issuer IS NULL) = (oidc_subject IS NULL));
      -- Password sign-ins refused because only company sign-in is on (OIDC_SSO_ONLY).
      ALTER TABLE audit_failure_tallies ADD COLUMN sso_only integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 19,
    name: "company sign-in refusals counted per address",
    up: `
      -- Password sign-ins refused because the account signs in through the identity provider, and
      -- company sign-ins the dashboard refused (lib/features/users/sso.ts), each reason apart: counted
      -- like failed passwords, since one person in no group can try again as often as they like.
      ALTER TABLE audit_failure_tallies ADD COLUMN company_account integer NOT NULL DEFAULT 0;
      ALTER TABLE audit_failure_tallies ADD COLUMN sso_no_group integer NOT NULL DEFAULT 0;
      ALTER TABLE audit_failure_tallies ADD COLUMN sso_no_email integer NOT NULL DEFAULT 0;
      ALTER TABLE audit_failure_tallies ADD COLUMN sso_email_unverified integer NOT NULL DEFAULT 0;
      ALTER TABLE audit_failure_tallies ADD COLUMN sso_email_taken integer NOT NULL DEFAULT 0;
      ALTER TABLE audit_failure_tallies ADD COLUMN sso_disabled integer NOT NULL DEFAULT 0;
      ALTER TABLE audit_failure_tallies ADD COLUMN sso_callback integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 20,
    name: "what signed-in people looked at recently",
    up: `
      -- The dashboards, saved reports and Monitor each person opened lately, as settings with relative
      -- dates, so the background warmer fetches their new days before the next look
      -- (lib/features/warming/looks.ts). A look is known by a hash of its settings (which can be long);
      -- each person keeps a few.
      CREATE TABLE recent_looks (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        look_key text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('dashboard', 'explore', 'cohorts', 'monitor')),
        params text NOT NULL,
        used_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, look_key)
      );
      CREATE INDEX recent_looks_used ON recent_looks (used_at);
    `,
  },
  {
    version: 21,
    name: "how old a shared answer's oldest records are",
    up: `
      -- An answer put together from kept days is kept from when it was put together (fetched_at, which
      -- its lifetime counts from) but tells when its oldest day was fetched; null: fetched_at.
      ALTER TABLE report_cache ADD COLUMN as_of timestamptz;
    `,
  },
];

// Any constant will do; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_ID = 7_286_125_001;

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration #${i} has version ${m.version}; versions must be 1, 2, 3, …`);
  });
}

/** Applies pending migrations in one transaction; returns the versions it applied. Idempotent. */
export async function migrate(store: Store, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  checkOrder(migrations);
  return store.transaction(async (tx: Sql) => {
    // Serializes processes migrating the same PostgreSQL database at once.
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    const done = new Set(rows.map((r) => r.version));
    const newest = rows.at(-1)?.version ?? 0;
    if (newest > migrations.length) {
      throw new Error(`the dashboard store is at schema version ${newest}, newer than this code (${migrations.length}); upgrade the dashboard`);
    }
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.exec(m.up);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
