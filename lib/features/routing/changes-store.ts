/**
 * Routing configuration changes as the workspace records them (migrations 13 and 15): proposed, then
 * applied, rejected, superseded, or withdrawn when who may approve it changed. Every decision is a conditional update on a pending row, so a change is
 * decided once however many people press a button at the same moment; `claim` reserves a pending
 * change for the one decider who may send it to the service.
 */
import type { RoutingConfig } from "@/lib/contract/routing-config";
import { fromJson, type Sql } from "@/lib/core/store/sql";
import type { RoutingChange, RoutingChangeStatus } from "./model";

interface Row {
  id: string;
  kind: "change" | "restore";
  base_version: number;
  config: unknown;
  restore_version: number | null;
  reason: string;
  proposed_by: string | null;
  proposed_by_email: string;
  proposed_at: Date;
  status: RoutingChangeStatus;
  decided_by: string | null;
  decided_by_email: string | null;
  decided_at: Date | null;
  decision_reason: string | null;
  applied_version: number | null;
}

const COLUMNS =
  "id, kind, base_version, config, restore_version, reason, proposed_by, proposed_by_email, proposed_at, status, decided_by, decided_by_email, decided_at, decision_reason, applied_version";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toChange(r: Row): RoutingChange {
  return {
    id: r.id,
    kind: r.kind,
    base_version: r.base_version,
    config: r.config === null ? null : fromJson<RoutingConfig>(r.config),
    restore_version: r.restore_version,
    reason: r.reason,
    proposed_by: { id: r.proposed_by, email: r.proposed_by_email },
    proposed_at: new Date(r.proposed_at).toISOString(),
    status: r.status,
    decided_by: r.decided_by_email === null ? null : { id: r.decided_by, email: r.decided_by_email },
    decided_at: r.decided_at === null ? null : new Date(r.decided_at).toISOString(),
    decision_reason: r.decision_reason,
    applied_version: r.applied_version,
  };
}

export interface Actor {
  id: string;
  email: string;
}

export type NewRoutingChange =
  | { kind: "change"; base_version: number; config: RoutingConfig; reason: string; proposer: Actor }
  | { kind: "restore"; base_version: number; restore_version: number; reason: string; proposer: Actor };

/** How long a decider may hold a change before another may take it over (it died mid-decision). */
export const CLAIM_LEASE_SECONDS = 120;

export function routingChangesRepo(db: Sql) {
  /** Sets a final status on a change that is still pending; null when it is not (any more). */
  async function decide(
    id: string,
    status: Exclude<RoutingChangeStatus, "pending">,
    by: Actor,
    extra: { decision_reason?: string | null; applied_version?: number | null },
    unclaimed = false,
  ): Promise<RoutingChange | null> {
    if (!UUID.test(id)) return null;
    // A rejection must not overtake a decider who is sending the change to the service right now.
    const claim = unclaimed ? " AND (claimed_until IS NULL OR claimed_until < now())" : "";
    const rows = await db.query<Row>(
      `UPDATE routing_changes
          SET status = $2, decided_by = $3, decided_by_email = $4, decided_at = now(), decision_reason = $5, applied_version = $6,
              claimed_by = NULL, claimed_until = NULL
        WHERE id = $1 AND status = 'pending'${claim}
        RETURNING ${COLUMNS}`,
      [id, status, by.id, by.email, extra.decision_reason ?? null, extra.applied_version ?? null],
    );
    return rows[0] ? toChange(rows[0]) : null;
  }

  return {
    async create(input: NewRoutingChange, status: "pending" | { applied_version: number } = "pending"): Promise<RoutingChange> {
      const applied = status !== "pending";
      const rows = await db.query<Row>(
        `INSERT INTO routing_changes
           (kind, base_version, config, restore_version, reason, proposed_by, proposed_by_email, status, decided_by, decided_by_email, decided_at, applied_version)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         RETURNING ${COLUMNS}`,
        [
          input.kind,
          input.base_version,
          input.kind === "change" ? JSON.stringify(input.config) : null,
          input.kind === "restore" ? input.restore_version : null,
          input.reason,
          input.proposer.id,
          input.proposer.email,
          applied ? "applied" : "pending",
          applied ? input.proposer.id : null,
          applied ? input.proposer.email : null,
          applied ? new Date() : null,
          applied ? status.applied_version : null,
        ],
      );
      return toChange(rows[0]!);
    },

    async get(id: string): Promise<RoutingChange | null> {
      if (!UUID.test(id)) return null;
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM routing_changes WHERE id = $1`, [id]);
      return rows[0] ? toChange(rows[0]) : null;
    },

    /** Pending changes, oldest first (the order they were proposed in). */
    async pending(): Promise<RoutingChange[]> {
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM routing_changes WHERE status = 'pending' ORDER BY proposed_at, id`);
      return rows.map(toChange);
    },

    /** The latest changes in any state, newest first. */
    async recent(limit = 50): Promise<RoutingChange[]> {
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM routing_changes ORDER BY proposed_at DESC, id LIMIT $1`, [limit]);
      return rows.map(toChange);
    },

    /**
     * Reserves a pending change for `by` while they send it to the service: true when they hold it
     * now, false when it is decided or another decider holds an unexpired claim.
     */
    async claim(id: string, by: Actor): Promise<boolean> {
      if (!UUID.test(id)) return false;
      const rows = await db.query(
        `UPDATE routing_changes SET claimed_by = $2, claimed_until = now() + make_interval(secs => $3)
          WHERE id = $1 AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < now())
          RETURNING id`,
        [id, by.id, CLAIM_LEASE_SECONDS],
      );
      return rows.length > 0;
    },

    /** Gives a claim back (the service refused for a reason that leaves the change pending). */
    async release(id: string, by: Actor): Promise<void> {
      if (!UUID.test(id)) return;
      await db.query("UPDATE routing_changes SET claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2 AND status = 'pending'", [id, by.id]);
    },

    applied: (id: string, by: Actor, version: number) => decide(id, "applied", by, { applied_version: version }),
    rejected: (id: string, by: Actor, reason: string) => decide(id, "rejected", by, { decision_reason: reason }, true),
    superseded: (id: string, by: Actor, why: string) => decide(id, "superseded", by, { decision_reason: why }),
    /** Withdraws a pending change nobody is sending to the service right now (one being sent completes). */
    withdrawn: (id: string, by: Actor, why: string) => decide(id, "withdrawn", by, { decision_reason: why.slice(0, 1000) }, true),
  };
}

