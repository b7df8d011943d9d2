/**
 * Claims on schedule slots (table `schedule_claims`, migration 7): the row that makes a slot of an
 * alert or a subscription run once, across ticks, restarts and dashboard instances sharing one
 * PostgreSQL. A worker that inserts the row, or takes over one whose holder's lease ran out before
 * it was done, holds the slot; only the holder completes it. Leases are measured on the store's clock
 * (`now()`), the one clock every instance shares, never on a worker's own.
 *
 * The same SQL runs on PGlite and PostgreSQL. Among workers racing for one slot exactly one wins:
 * the primary key lets one INSERT through, and PostgreSQL re-checks a conditional UPDATE's WHERE on
 * the row as the winner left it, so a second taker finds the lease renewed and updates nothing.
 */
import { isUuid } from "@/lib/features/saved-reports/store";
import type { Sql } from "@/lib/core/store/sql";

export const CLAIM_KINDS = ["alert", "subscription"] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

export interface Claim {
  kind: ClaimKind;
  itemId: string;
  slot: Date;
  /** The worker holding (or that held) the slot. */
  claimedBy: string;
  claimedAt: Date;
  leaseUntil: Date;
  /** When the holder completed it; null while it runs, or when its holder died before completing. */
  doneAt: Date | null;
  /** Run more than the scheduler's lateAfterSeconds after the slot (e.g. after downtime). */
  late: boolean;
  /** The run's error message, when it threw. */
  error: string | null;
}

interface Row {
  kind: ClaimKind;
  item_id: string;
  slot: Date;
  claimed_by: string;
  claimed_at: Date;
  lease_until: Date;
  done_at: Date | null;
  late: boolean;
  error: string | null;
}

const toClaim = (r: Row): Claim => ({
  kind: r.kind,
  itemId: r.item_id,
  slot: new Date(r.slot),
  claimedBy: r.claimed_by,
  claimedAt: new Date(r.claimed_at),
  leaseUntil: new Date(r.lease_until),
  doneAt: r.done_at === null ? null : new Date(r.done_at),
  late: r.late,
  error: r.error,
});

/** Longest error message kept on a claim. */
export const MAX_ERROR_LENGTH = 1000;

function checkArgs(kind: ClaimKind, itemId: string): void {
  if (!CLAIM_KINDS.includes(kind)) throw new TypeError(`schedule claim: unknown kind ${JSON.stringify(kind)}`);
  if (!isUuid(itemId)) throw new TypeError(`schedule claim: item id ${JSON.stringify(itemId)} is not a uuid`);
}

function checkLease(leaseSeconds: number): void {
  if (!Number.isFinite(leaseSeconds) || leaseSeconds <= 0) throw new RangeError(`schedule claim: lease of ${leaseSeconds} s`);
}

const WHERE_SLOT = "kind = $1 AND item_id = $2 AND slot = $3";

export function claimsRepo(db: Sql) {
  return {
    /**
     * Tries to take the slot for `workerId` for `leaseSeconds`; true when this worker now holds it.
     * False when the slot is done, or another worker (or this one, in an earlier claim) holds an
     * unexpired lease. A taken-over claim stays late if it was, and its error is cleared.
     */
    async claim(kind: ClaimKind, itemId: string, slot: Date, workerId: string, leaseSeconds: number, late: boolean): Promise<boolean> {
      checkArgs(kind, itemId);
      checkLease(leaseSeconds);
      const params = [kind, itemId, slot, workerId, leaseSeconds, late];
      const inserted = await db.query(
        `INSERT INTO schedule_claims (kind, item_id, slot, claimed_by, claimed_at, lease_until, late)
         VALUES ($1, $2, $3, $4, now(), now() + make_interval(secs => $5::double precision), $6::boolean)
         ON CONFLICT (kind, item_id, slot) DO NOTHING
         RETURNING claimed_by`,
        params,
      );
      if (inserted.length > 0) return true;
      const taken = await db.query(
        `UPDATE schedule_claims
         SET claimed_by = $4, claimed_at = now(), lease_until = now() + make_interval(secs => $5::double precision),
             late = late OR $6::boolean, error = NULL
         WHERE ${WHERE_SLOT} AND done_at IS NULL AND lease_until < now()
         RETURNING claimed_by`,
        params,
      );
      return taken.length > 0;
    },

    /** Extends the holder's lease, for a run that takes a while; false when it is no longer the holder or the slot is done. */
    async renew(kind: ClaimKind, itemId: string, slot: Date, workerId: string, leaseSeconds: number): Promise<boolean> {
      checkArgs(kind, itemId);
      checkLease(leaseSeconds);
      const rows = await db.query(
        `UPDATE schedule_claims SET lease_until = now() + make_interval(secs => $5::double precision)
         WHERE ${WHERE_SLOT} AND claimed_by = $4 AND done_at IS NULL
         RETURNING claimed_by`,
        [kind, itemId, slot, workerId, leaseSeconds],
      );
      return rows.length > 0;
    },

    /**
     * Marks the slot done, with the run's error if it threw; only its holder can, and only once.
     * False when `workerId` does not hold it (another took it over) or it is already done.
     */
    async complete(kind: ClaimKind, itemId: string, slot: Date, workerId: string, error?: string | null): Promise<boolean> {
      checkArgs(kind, itemId);
      const rows = await db.query(
        `UPDATE schedule_claims SET done_at = now(), error = $5
         WHERE ${WHERE_SLOT} AND claimed_by = $4 AND done_at IS NULL
         RETURNING claimed_by`,
        [kind, itemId, slot, workerId, error == null ? null : error.slice(0, MAX_ERROR_LENGTH)],
      );
      return rows.length > 0;
    },

    /** The claim of one slot, or null when nobody claimed it. */
    async get(kind: ClaimKind, itemId: string, slot: Date): Promise<Claim | null> {
      if (!isUuid(itemId)) return null;
      const rows = await db.query<Row>(`SELECT * FROM schedule_claims WHERE ${WHERE_SLOT}`, [kind, itemId, slot]);
      return rows[0] ? toClaim(rows[0]) : null;
    },

    /** The latest slot of the item anyone claimed, done or not; null when none. */
    async lastSlot(kind: ClaimKind, itemId: string): Promise<Date | null> {
      if (!isUuid(itemId)) return null;
      const rows = await db.query<{ slot: Date | null }>("SELECT max(slot) AS slot FROM schedule_claims WHERE kind = $1 AND item_id = $2", [
        kind,
        itemId,
      ]);
      const slot = rows[0]?.slot;
      return slot == null ? null : new Date(slot);
    },

    /** The item's claims, latest slot first, at most `limit` (1–1000). */
    async history(kind: ClaimKind, itemId: string, limit = 50): Promise<Claim[]> {
      if (!isUuid(itemId)) return [];
      const n = Math.min(1000, Math.max(1, Math.floor(limit)));
      const rows = await db.query<Row>("SELECT * FROM schedule_claims WHERE kind = $1 AND item_id = $2 ORDER BY slot DESC LIMIT $3", [
        kind,
        itemId,
        n,
      ]);
      return rows.map(toClaim);
    },
  };
}

export type ClaimsRepo = ReturnType<typeof claimsRepo>;
