/**
 * Versioned schema migrations, applied in order at start (and by every CLI command that opens the
 * file). Each runs in its own transaction with its version row, so a failed migration leaves the
 * previous version intact.
 *
 * Money is stored as integer cents (BIGINT) so sums are exact; the wire format divides once, at the end.
 */
import type { Database } from "../db";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "payment data, reference tables, API clients",
    sql: `
      CREATE TABLE gateways (
        gateway_id INTEGER PRIMARY KEY,
        gateway_alias VARCHAR NOT NULL,
        acquirer VARCHAR NOT NULL,
        mcc VARCHAR NOT NULL
      );
      CREATE TABLE campaigns (
        campaign_id INTEGER PRIMARY KEY,
        campaign_name VARCHAR NOT NULL,
        campaign_type VARCHAR NOT NULL,
        cpa_cents BIGINT NOT NULL
      );
      CREATE TABLE products (
        product_id INTEGER PRIMARY KEY,
        product_name VARCHAR NOT NULL,
        product_group VARCHAR NOT NULL
      );
      CREATE TABLE bins (
        bin VARCHAR PRIMARY KEY,
        bank VARCHAR NOT NULL,
        card_brand VARCHAR NOT NULL,
        card_type VARCHAR NOT NULL
      );
      -- The customer's initial order (billing cycle 0): what cohorts are attributed to.
      CREATE TABLE customers (
        customer_id BIGINT NOT NULL,
        initial_date DATE NOT NULL,
        campaign_id INTEGER NOT NULL,
        product_id INTEGER NOT NULL,
        affid VARCHAR,
        sub_affid VARCHAR,
        price_point_cents BIGINT NOT NULL
      );
      CREATE TABLE attempts (
        attempt_id BIGINT NOT NULL,
        order_id BIGINT NOT NULL,
        customer_id BIGINT NOT NULL,
        attempted_at TIMESTAMP NOT NULL,
        attempt_date DATE NOT NULL,
        attempt_no INTEGER NOT NULL,
        is_cascade BOOLEAN NOT NULL,
        approved BOOLEAN NOT NULL,
        amount_cents BIGINT NOT NULL,
        billing_cycle INTEGER NOT NULL,
        sales_type VARCHAR NOT NULL,
        campaign_id INTEGER NOT NULL,
        product_id INTEGER NOT NULL,
        gateway_id INTEGER NOT NULL,
        bin VARCHAR NOT NULL,
        affid VARCHAR,
        sub_affid VARCHAR,
        price_point_cents BIGINT NOT NULL,
        initial_date DATE NOT NULL
      );
      CREATE TABLE refunds (
        refund_id BIGINT NOT NULL,
        attempt_id BIGINT NOT NULL,
        refund_date DATE NOT NULL,
        amount_cents BIGINT NOT NULL,
        refund_type VARCHAR NOT NULL
      );
      CREATE TABLE chargebacks (
        chargeback_id BIGINT NOT NULL,
        attempt_id BIGINT NOT NULL,
        cb_date DATE NOT NULL,
        amount_cents BIGINT NOT NULL
      );
      CREATE TABLE alerts (
        alert_id BIGINT NOT NULL,
        attempt_id BIGINT NOT NULL,
        alert_date DATE NOT NULL,
        amount_cents BIGINT NOT NULL,
        alert_type VARCHAR NOT NULL
      );
      CREATE TABLE api_clients (
        client_id VARCHAR PRIMARY KEY,
        name VARCHAR NOT NULL,
        secret_salt VARCHAR NOT NULL,
        secret_hash VARCHAR NOT NULL,
        active BOOLEAN NOT NULL DEFAULT TRUE,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
      );
      CREATE TABLE dataset_info (
        key VARCHAR PRIMARY KEY,
        value VARCHAR NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "BIN routing: groups, members, rules, group state, decisions",
    // No key constraints: the loader validates the whole configuration before replacing it in one
    // transaction, and DuckDB's index checks make delete-and-reinsert of a key in one transaction fragile.
    sql: `
      CREATE TABLE routing_groups (
        group_id INTEGER NOT NULL,
        group_name VARCHAR NOT NULL,
        selection_method VARCHAR NOT NULL,
        cycle_scope INTEGER NOT NULL,
        is_fallback BOOLEAN NOT NULL,
        created_at TIMESTAMP NOT NULL
      );
      CREATE TABLE routing_group_members (
        group_id INTEGER NOT NULL,
        position INTEGER NOT NULL,
        gateway_id INTEGER NOT NULL,
        weight INTEGER NOT NULL,
        active BOOLEAN NOT NULL
      );
      CREATE TABLE routing_rules (
        rule_id INTEGER NOT NULL,
        rule_name VARCHAR NOT NULL,
        rule_type VARCHAR NOT NULL,
        bin_prefix VARCHAR,
        bank VARCHAR,
        group_id INTEGER NOT NULL,
        enabled BOOLEAN NOT NULL,
        created_at TIMESTAMP NOT NULL
      );
      -- Rotation state per group, valid for the member list described by signature.
      CREATE TABLE routing_group_state (
        group_id INTEGER NOT NULL,
        signature VARCHAR NOT NULL,
        total_calls BIGINT NOT NULL,
        position INTEGER NOT NULL,
        credits VARCHAR NOT NULL,
        random_next INTEGER,
        updated_at TIMESTAMP NOT NULL
      );
      -- One row per answered routing call; the e-mail only as SHA-256 of its lower-cased form.
      CREATE TABLE routing_decisions (
        decided_at TIMESTAMP NOT NULL,
        bin VARCHAR NOT NULL,
        sales_type VARCHAR,
        rule_name VARCHAR NOT NULL,
        is_fallback BOOLEAN NOT NULL,
        group_id INTEGER NOT NULL,
        gateway_id INTEGER NOT NULL,
        call_no BIGINT NOT NULL,
        customer_id VARCHAR,
        product_id VARCHAR,
        email_sha256 VARCHAR,
        client_id VARCHAR
      );
      -- The last routing journal batch folded into the tables above (service/routing/journal.ts).
      CREATE TABLE routing_journal_checkpoint (applied_seq BIGINT NOT NULL);
      INSERT INTO routing_journal_checkpoint VALUES (0);
    `,
  },
  {
    version: 3,
    name: "Client scopes; versioned BIN routing configuration",
    sql: `
      -- Space-separated permissions beyond routing and reporting (service/clients.ts CLIENT_SCOPES).
      ALTER TABLE api_clients ADD COLUMN scopes VARCHAR DEFAULT '';
      UPDATE api_clients SET scopes = '' WHERE scopes IS NULL;
      -- Every routing configuration ever applied, in the routing load file format (service/routing/versions.ts).
      CREATE TABLE routing_config_versions (
        version INTEGER NOT NULL,
        created_at TIMESTAMP NOT NULL,
        author VARCHAR NOT NULL,
        reason VARCHAR NOT NULL,
        client_id VARCHAR,
        restored_from INTEGER,
        config VARCHAR NOT NULL,
        rotation VARCHAR NOT NULL
      );
    `,
  },
];

export async function migrate(db: Database): Promise<number> {
  await db.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`);
  const rows = await db.all<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations");
  const current = rows[0]?.v ?? 0;
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    await db.transaction(async (tx) => {
      await tx.run(m.sql);
      await tx.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [m.version, m.name]);
    });
  }
  return MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
}
