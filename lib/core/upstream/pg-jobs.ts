import "server-only";
/**
 * Report jobs as rows, for several dashboard instances on one PostgreSQL database: the
 * instance that runs a job writes its status and renews a lease while it runs; any instance answers
 * a poll for it from the row (long polling by re-reading it every POLL_MS: the row is small and
 * indexed, and this needs no connection held open per waiting caller as LISTEN would), and the done
 * answer from the shared cache. A job whose instance stopped renewing is taken over by the instance
 * polled for it (same id, fetched again), or failed with a clear message when nobody asks.
 *
 * Not a queue library (pg-boss, graphile-worker): these rows are not work waiting for a worker — the
 * instance that accepted a report runs it at once through its own quota queue — but status records
 * with a lease, a few statements each.
 */
import type { Operation } from "@/lib/contract";
import { fromJson, type Sql } from "@/lib/core/store/sql";
import type { JobStatus, JobView } from "./jobs";
import type { ReportQuery } from "./records";

/** How long a job's row is its instance's without renewal, and how often it is renewed. */
export const JOB_LEASE_SECONDS = 15;
/** A job nobody took over this long after its lease ran out is failed. */
const ABANDONED_SECONDS = 60;
const POLL_MS = 200;

interface Row {
  id: string;
  key: string;
  op: Operation;
  query: ReportQuery | string;
  owner: string;
  instance: string;
  status: JobStatus | string;
  created_at: Date;
  lease_until: Date;
  finished_at: Date | null;
  expired: boolean;
}

export interface SharedJob {
  view: JobView;
  key: string;
  owner: string;
  instance: string;
  /** The lease ran out and the job is not finished: its instance stopped. */
  abandoned: boolean;
  finished: boolean;
}


/**
 * A status as kept in the row: a done job's records live in the shared cache, not here. `as_of` is
 * when its instance read it (that instance's clock; only the instance running a job writes its
 * status): a write never replaces a newer one, so a poll answered from the row never shows an older
 * place in line than a poll its instance answered before.
 */
function storable(status: JobStatus, asOf: number): string {
  const kept: JobStatus = status.state === "done" ? { state: "done", result: { ...omitData(status.result), data: [] } } : status;
  return JSON.stringify({ ...kept, as_of: asOf });
}

function omitData<T extends { data: unknown }>(r: T): Omit<T, "data"> {
  const { data: _data, ...rest } = r;
  return rest;
}

/** The status of a row, without when it was read. */
function statusOf(raw: unknown): JobStatus {
  const { as_of: _asOf, ...status } = fromJson<JobStatus & { as_of?: number }>(raw);
  return status as JobStatus;
}

/** The row's status is replaced only by one read at the same time or later (`$param`: when it was read). */
const notOlder = (param: number) => `COALESCE((status->>'as_of')::float8, 0) <= $${param}::float8`;

const FINISHED = new Set(["done", "failed", "cancelled"]);

export class PgJobs {
  readonly leaseSeconds: number;
  /** How often the gateway renews this instance's leases: a third of the lease. */
  readonly renewMs: number;

  constructor(
    private readonly db: Sql,
    readonly instance: string,
    opts: { leaseSeconds?: number } = {},
  ) {
    this.leaseSeconds = opts.leaseSeconds ?? JOB_LEASE_SECONDS;
    this.renewMs = Math.max(200, (this.leaseSeconds * 1000) / 3);
  }

  async record(view: JobView, key: string, owner: string): Promise<void> {
    await this.db.query(
      `INSERT INTO report_jobs (id, key, op, query, owner, instance, status, lease_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))
       ON CONFLICT (id) DO UPDATE SET instance = $6, status = $7, lease_until = now() + make_interval(secs => $8), finished_at = NULL, updated_at = now()`,
      [view.id, key, view.operation, JSON.stringify(view.query), owner, this.instance, storable(view.status, Date.now()), this.leaseSeconds],
    );
  }

  /**
   * Writes the status of a job this instance runs, read at `asOf`, unless the row holds a newer one:
   * what a poll answered here showed, so that a poll answered from the row elsewhere shows no older.
   */
  async update(view: JobView, asOf: number): Promise<void> {
    await this.db.query(
      `UPDATE report_jobs SET status = $3, updated_at = now()
        WHERE id = $1 AND instance = $2 AND finished_at IS NULL AND ${notOlder(4)}`,
      [view.id, this.instance, storable(view.status, asOf), asOf],
    );
  }

  /**
   * Renews the leases (and statuses) of the jobs this instance runs, and says when each was last
   * polled on any instance (so its own does not cancel it as forgotten); fails jobs abandoned for good.
   */
  async renew(views: readonly JobView[], asOf = Date.now()): Promise<Map<string, number>> {
    const polled = new Map<string, number>();
    for (const v of views) {
      // The lease always; the status only when no newer one was written since the views were read.
      const rows = await this.db.query<{ polled_at: Date | null }>(
        `UPDATE report_jobs SET status = CASE WHEN ${notOlder(5)} THEN $3::jsonb ELSE status END,
                lease_until = now() + make_interval(secs => $4), updated_at = now()
          WHERE id = $1 AND instance = $2 AND finished_at IS NULL RETURNING polled_at`,
        [v.id, this.instance, storable(v.status, asOf), this.leaseSeconds, asOf],
      );
      const at = rows[0]?.polled_at;
      if (at) polled.set(v.id, new Date(at).getTime());
    }
    await this.db.query(
      `UPDATE report_jobs SET status = $1, finished_at = now(), updated_at = now()
        WHERE finished_at IS NULL AND lease_until < now() - make_interval(secs => $2)`,
      [
        JSON.stringify({
          state: "failed",
          error: { status: 503, message: "The dashboard instance that was fetching this report stopped.", action: "Run the report again." },
        } satisfies JobStatus),
        ABANDONED_SECONDS,
      ],
    );
    return polled;
  }

  /** A caller polled the job here: its own instance learns it at its next renewal. */
  async touch(id: string): Promise<void> {
    await this.db.query("UPDATE report_jobs SET polled_at = now() WHERE id = $1", [id]);
  }

  async finish(view: JobView): Promise<void> {
    await this.db.query("UPDATE report_jobs SET status = $3, finished_at = now(), updated_at = now() WHERE id = $1 AND instance = $2", [
      view.id,
      this.instance,
      storable(view.status, Date.now()),
    ]);
  }

  async get(id: string): Promise<SharedJob | null> {
    const rows = await this.db.query<Row>("SELECT *, (lease_until < now()) AS expired FROM report_jobs WHERE id = $1", [id]);
    const r = rows[0];
    if (!r) return null;
    const status = statusOf(r.status);
    return {
      view: { id: r.id, operation: r.op, query: fromJson<ReportQuery>(r.query), created_at: new Date(r.created_at).toISOString(), status },
      key: r.key,
      owner: r.owner,
      instance: r.instance,
      abandoned: r.finished_at === null && r.expired,
      finished: r.finished_at !== null || FINISHED.has(status.state),
    };
  }

  /**
   * Another instance's unfinished job of the same report, written before job `id` (the one asking)
   * was: a job follows only an older one, so two asked at once on two instances never follow each
   * other, each waiting for the other's answer for as long as both are polled. Before its own row is
   * written, every other row is older.
   */
  async live(key: string, id: string): Promise<SharedJob | null> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT j.id FROM report_jobs j
       WHERE j.key = $1 AND j.finished_at IS NULL AND j.lease_until > now() AND j.instance <> $2
         AND NOT EXISTS (SELECT 1 FROM report_jobs me WHERE me.id = $3 AND (me.created_at, me.id) <= (j.created_at, j.id))
       ORDER BY j.created_at LIMIT 1`,
      [key, this.instance, id],
    );
    return rows[0] ? this.get(rows[0].id) : null;
  }

  /** Takes over a job whose lease ran out; true for the one instance that wins it. */
  async takeOver(id: string): Promise<boolean> {
    const rows = await this.db.query(
      "UPDATE report_jobs SET instance = $2, lease_until = now() + make_interval(secs => $3), updated_at = now() WHERE id = $1 AND finished_at IS NULL AND lease_until < now() RETURNING id",
      [id, this.instance, this.leaseSeconds],
    );
    return rows.length > 0;
  }

  /**
   * Re-reads the row until it is finished, abandoned, or `ms` have passed, each reading told to
   * `onRead`. A row not there yet gets a moment (its instance writes it just after answering the
   * submit that a caller may already poll).
   */
  async waitFor(id: string, ms: number, onRead?: (job: SharedJob) => void): Promise<SharedJob | null> {
    const deadline = Date.now() + ms;
    let job = await this.get(id);
    for (let i = 0; !job && i < 5; i++) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      job = await this.get(id);
    }
    if (job) onRead?.(job);
    while (job && !job.finished && !job.abandoned && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
      job = await this.get(id);
      if (job) onRead?.(job);
    }
    return job;
  }
}
