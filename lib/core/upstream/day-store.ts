/**
 * The day store: every answer the upstream gave, kept per day at the grain it was asked, in the
 * dashboard's store (PGlite, or PostgreSQL shared by every instance), across restarts. A question
 * over a range is answered from the kept days plus calls for the days not kept; a coarser question
 * is derived from a finer shape's days (./derive.ts), as the answer cache derives.
 *
 * A day is kept per shape (./day-shape.ts): a settled day until the bound evicts it or the totals
 * check finds it moved; a day still within its settle window only for a while (`freshUntil`), then
 * fetched again. docs/dashboards.md ("Kept days") states the windows and the bound.
 */
import type { Operation, ReportRecord } from "@/lib/contract";
import { addDays, todayIn } from "@/lib/contract/dates";
import { fromJson, type Store } from "@/lib/core/store/sql";
import { freshUntil, missingRuns, settleDays, shapeKey, withRange, type Freshness, type Shape } from "./day-shape";
import { canDerive } from "./derive";
import type { DateRange } from "./range-pieces";
import { canonicalQuery } from "./records";

/**
 * What a kept day costs besides its records (its keys and the row itself), counted in the bound so
 * that days without records, cheap to ask for, cannot grow the store without bound.
 */
const ROW_OVERHEAD_BYTES = 64;

export interface DayStoreConfig extends Freshness {
  /** The bound on the records' JSON size together; least recently used days go first past it. */
  maxBytes: number;
}

/** A kept day's records, from the shape asked or a finer one. */
export interface KeptDay {
  records: ReportRecord[];
  fetchedAt: number;
  shapeKey: string;
  /** True when that shape is the one asked (the records need no derivation). */
  exact: boolean;
}

export interface KeptDays {
  days: Map<string, KeptDay>;
  /** The range's days not kept current, as runs of consecutive days, in order. */
  missing: DateRange[];
}

interface ShapeRow {
  key: string;
  shape: unknown;
}

interface DayMetaRow {
  shape_key: string;
  day: string;
  fetched_at: Date;
}

interface DayRow extends DayMetaRow {
  records: unknown;
}

/** A recently used shape, the days it holds, and when its settled days were last checked. */
export interface KeptShape {
  key: string;
  op: Operation;
  shape: Shape;
  usedAt: number;
  checkedAt: number | null;
  firstDay: string;
  lastDay: string;
}

export class DayStore {
  constructor(
    private readonly db: Store,
    readonly config: DayStoreConfig,
    private readonly clock: () => number = Date.now,
  ) {}

  now(): number {
    return this.clock();
  }

  today(): string {
    return todayIn(this.config.timeZone, new Date(this.clock()));
  }

  /**
   * The current kept days of `[start, end]` for the shape, each from the shape itself or else from a
   * finer kept shape that derives it, and the runs of days to fetch. Counts as a use of what it reads.
   */
  async read(op: Operation, shape: Shape, start: string, end: string): Promise<KeptDays> {
    const now = this.clock();
    const key = shapeKey(op, shape);
    const { chosen, known } = await this.choose(op, shape, start, end, now);
    const days = new Map<string, KeptDay>();
    if (chosen.size > 0) {
      const picks = [...chosen.entries()];
      const rows = await this.db.query<DayRow>(
        `UPDATE report_days d SET used_at = $3
         FROM unnest($1::text[], $2::text[]) AS u(shape_key, day)
         WHERE d.shape_key = u.shape_key AND d.day = u.day
         RETURNING d.shape_key, d.day, d.records, d.fetched_at`,
        [picks.map(([, p]) => p.key), picks.map(([d]) => d), new Date(now)],
      );
      for (const r of rows) {
        days.set(r.day, { records: fromJson<ReportRecord[]>(r.records), fetchedAt: new Date(r.fetched_at).getTime(), shapeKey: r.shape_key, exact: r.shape_key === key });
      }
    }
    if (known) await this.db.query("UPDATE report_shapes SET used_at = $2 WHERE key = $1", [key, new Date(now)]);
    return { days, missing: missingRuns(start, end, (d) => days.has(d)) };
  }

  /**
   * The runs of days `read` would find missing now, without reading or touching the kept ones, and
   * the record counts of those days that are kept at the shape but no longer current (what asking
   * them again will likely return, to count its pages by).
   */
  async missing(op: Operation, shape: Shape, start: string, end: string): Promise<{ runs: DateRange[]; staleRows: Map<string, number> }> {
    const { chosen, staleRows } = await this.choose(op, shape, start, end, this.clock());
    return { runs: missingRuns(start, end, (d) => chosen.has(d)), staleRows };
  }

  /**
   * For each day of the range kept current, the shape to read it from: the one asked, else the
   * first finer kept shape that derives it; and whether the asked shape is kept at all.
   */
  private async choose(op: Operation, shape: Shape, start: string, end: string, now: number) {
    const key = shapeKey(op, shape);
    const wanted = withRange(shape, start, end);
    const shapes = await this.db.query<ShapeRow>("SELECT key, shape FROM report_shapes WHERE op = $1", [op]);
    const candidates = shapes
      .map((r) => ({ key: r.key, shape: fromJson<Shape>(r.shape) }))
      .filter((c) => c.key === key || canDerive(op, wanted, withRange(c.shape, start, end)))
      .sort((a, b) => (a.key === key ? -1 : b.key === key ? 1 : a.key < b.key ? -1 : 1));
    const chosen = new Map<string, { key: string; fetchedAt: number }>();
    const staleRows = new Map<string, number>();
    if (candidates.length > 0) {
      const meta = await this.db.query<DayMetaRow & { rows: number }>(
        "SELECT shape_key, day, fetched_at, json_array_length(records) AS rows FROM report_days WHERE shape_key = ANY($1::text[]) AND day >= $2 AND day <= $3",
        [candidates.map((c) => c.key), start, end],
      );
      const settleOf = new Map(candidates.map((c) => [c.key, settleDays(op, c.shape)]));
      const rank = new Map(candidates.map((c, i) => [c.key, i]));
      for (const m of meta) {
        const fetchedAt = new Date(m.fetched_at).getTime();
        if (freshUntil(m.day, fetchedAt, settleOf.get(m.shape_key)!, this.config) <= now) {
          if (m.shape_key === key) staleRows.set(m.day, Number(m.rows));
          continue;
        }
        const held = chosen.get(m.day);
        if (held && rank.get(held.key)! <= rank.get(m.shape_key)!) continue;
        chosen.set(m.day, { key: m.shape_key, fetchedAt });
      }
    }
    return { chosen, staleRows, known: shapes.some((s) => s.key === key) };
  }

  /**
   * Keeps the records fetched for `[start, end]` at the shape, one row per day (a day without records
   * is kept as known to be empty), unless a later fetch of a day is already kept; then keeps the
   * store within its bound.
   */
  async write(op: Operation, shape: Shape, start: string, end: string, records: readonly ReportRecord[], fetchedAt: number): Promise<void> {
    const key = shapeKey(op, shape);
    const byDay = new Map<string, ReportRecord[]>();
    for (let d = start; d <= end; d = addDays(d, 1)) byDay.set(d, []);
    for (const r of records) byDay.get(String(r.date))?.push(r);
    const rows = [...byDay].map(([day, list]) => ({ day, records: list, bytes: JSON.stringify(list).length + ROW_OVERHEAD_BYTES }));
    const at = new Date(fetchedAt);
    const { start_date: _s, end_date: _e, ...canonical } = canonicalQuery(op, withRange(shape, "", ""));
    // One transaction: another instance's eviction, which drops shapes left without days, cannot
    // take the shape between the two (its days would then be refused, or dropped with it).
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO report_shapes (key, op, shape, used_at) VALUES ($1, $2, $3::jsonb, $4)
         ON CONFLICT (key) DO UPDATE SET used_at = GREATEST(report_shapes.used_at, EXCLUDED.used_at)`,
        [key, op, JSON.stringify(canonical), new Date(this.clock())],
      );
      await tx.query(
        `INSERT INTO report_days (shape_key, day, records, bytes, fetched_at, used_at)
         SELECT $1, r.day, r.records, r.bytes, $2, $3
         FROM json_to_recordset($4::json) AS r(day text, records json, bytes integer)
         ON CONFLICT (shape_key, day) DO UPDATE SET
           records = EXCLUDED.records, bytes = EXCLUDED.bytes, fetched_at = EXCLUDED.fetched_at, used_at = EXCLUDED.used_at
         WHERE report_days.fetched_at <= EXCLUDED.fetched_at`,
        [key, at, new Date(this.clock()), JSON.stringify(rows)],
      );
    });
    await this.enforceBound();
  }

  /** Drops the kept days of a shape (days the totals check found moved): they are fetched again. */
  async forget(key: string, days: readonly string[]): Promise<void> {
    if (days.length === 0) return;
    await this.db.query("DELETE FROM report_days WHERE shape_key = $1 AND day = ANY($2::text[])", [key, [...days]]);
  }

  /** Notes that a shape's settled days were compared with the upstream at `at`. */
  async markChecked(key: string, at: number): Promise<void> {
    await this.db.query("UPDATE report_shapes SET checked_at = $2 WHERE key = $1", [key, new Date(at)]);
  }

  /** Shapes used since `since` (ms), most recently used first, with the span of days they hold. */
  async shapesUsedSince(since: number): Promise<KeptShape[]> {
    const rows = await this.db.query<{ key: string; op: Operation; shape: unknown; used_at: Date; checked_at: Date | null; first_day: string | null; last_day: string | null }>(
      `SELECT s.key, s.op, s.shape, s.used_at, s.checked_at, min(d.day) AS first_day, max(d.day) AS last_day
       FROM report_shapes s JOIN report_days d ON d.shape_key = s.key
       WHERE s.used_at >= $1
       GROUP BY s.key, s.op, s.shape, s.used_at, s.checked_at
       ORDER BY s.used_at DESC, s.key`,
      [new Date(since)],
    );
    return rows.map((r) => ({
      key: r.key,
      op: r.op,
      shape: fromJson<Shape>(r.shape),
      usedAt: new Date(r.used_at).getTime(),
      checkedAt: r.checked_at ? new Date(r.checked_at).getTime() : null,
      firstDay: r.first_day!,
      lastDay: r.last_day!,
    }));
  }

  /** The kept days of one shape within `[start, end]`, with their records (for the totals check). */
  async keptDays(key: string, start: string, end: string): Promise<{ day: string; records: ReportRecord[]; fetchedAt: number }[]> {
    const rows = await this.db.query<DayRow>(
      "SELECT shape_key, day, records, fetched_at FROM report_days WHERE shape_key = $1 AND day >= $2 AND day <= $3 ORDER BY day",
      [key, start, end],
    );
    return rows.map((r) => ({ day: r.day, records: fromJson<ReportRecord[]>(r.records), fetchedAt: new Date(r.fetched_at).getTime() }));
  }

  /** What the store holds: rows (shape-days), shapes and bytes. */
  async stats(): Promise<{ days: number; shapes: number; bytes: number }> {
    const [row] = await this.db.query<{ days: string | number; shapes: string | number; bytes: string | number | null }>(
      "SELECT count(*) AS days, count(DISTINCT shape_key) AS shapes, sum(bytes) AS bytes FROM report_days",
    );
    return { days: Number(row?.days ?? 0), shapes: Number(row?.shapes ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /**
   * Past the bound, deletes the least recently used shape-days (ties: the oldest day first) until the
   * rest fit; shapes left without days go too.
   */
  private async enforceBound(): Promise<void> {
    const { bytes } = await this.stats();
    if (bytes <= this.config.maxBytes) return;
    await this.db.query(
      `DELETE FROM report_days WHERE (shape_key, day) IN (
         SELECT shape_key, day FROM (
           SELECT shape_key, day,
                  sum(bytes) OVER (ORDER BY used_at DESC, day DESC, shape_key DESC ROWS UNBOUNDED PRECEDING) AS upto
           FROM report_days
         ) ranked WHERE upto > $1
       )`,
      [this.config.maxBytes],
    );
    // A shape another instance is writing now is locked: skipped, not dropped under its new days.
    await this.db.query(
      `DELETE FROM report_shapes WHERE key IN (
         SELECT key FROM report_shapes s WHERE NOT EXISTS (SELECT 1 FROM report_days d WHERE d.shape_key = s.key) FOR UPDATE SKIP LOCKED
       )`,
    );
  }
}
