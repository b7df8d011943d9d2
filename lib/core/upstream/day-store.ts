/**
 * The day store: every answer the upstream gave, kept per day at the grain it was asked, in the
 * dashboard's store (PGlite, or PostgreSQL shared by every instance), across restarts. A question
 * over a range is answered from the kept days plus calls for the days not kept; a coarser question
 * is derived from a finer shape's days (./derive.ts), as the answer cache derives.
 *
 * A *shape* is a question without its dates, grouped by date (the day grain): its days can be kept
 * apart and put together for any range. A day is *settled* once nothing more can arrive for it
 * (`settleDays`): a settled day is kept until the bound evicts it or the totals check finds it
 * moved; a day still within its settle window is kept only for a while (`freshUntil`) and fetched
 * again after that. docs/dashboards.md ("Kept days") states the windows and the bound.
 */
import { LIMITS, getMetric, type Operation, type ReportRecord } from "@/lib/contract";
import { addDays, daysBetween, todayIn } from "@/lib/contract/dates";
import { MATURITY_WINDOW_DAYS } from "@/lib/contract/catalog";
import { fromJson, type Store } from "@/lib/core/store/sql";
import { canDerive } from "./derive";
import type { DateRange } from "./range-pieces";
import { canonicalQuery, effectiveMetrics, type ReportQuery } from "./records";

/** A question without its dates, at the day grain. */
export type Shape = Omit<ReportQuery, "start_date" | "end_date">;

/**
 * Days after which the upstream no longer changes a day's attempts (late settlement, imports that
 * arrive the next morning): today and the day before are always asked again.
 */
export const RECENT_SETTLE_DAYS = 2;

/**
 * A cohort's numbers change for as long as its customers rebill, are refunded or charged back
 * (SPEC.md: "whenever they happen, up to today"); a year covers the demo's subscriptions and the
 * networks' dispute windows after their last rebill.
 */
export const COHORT_SETTLE_DAYS = 365;

/** Days after which one metric of an operation stops changing for a day. */
export function metricSettleDays(op: Operation, metric: string): number {
  if (op === "cohort") return COHORT_SETTLE_DAYS;
  const m = getMetric(metric);
  // Chargebacks, refunds and alerts dated by their sale keep arriving for the sale's day.
  if (m && m.source !== "attempts" && m.dateBasis === "attempt") return MATURITY_WINDOW_DAYS[m.source] + RECENT_SETTLE_DAYS;
  return RECENT_SETTLE_DAYS;
}

/** Days after which a shape's day is settled: the longest window of its metrics. */
export function settleDays(op: Operation, shape: Shape): number {
  return Math.max(RECENT_SETTLE_DAYS, ...effectiveMetrics(op, withRange(shape, "", "")).map((m) => metricSettleDays(op, m)));
}

export function withRange(shape: Shape, start_date: string, end_date: string): ReportQuery {
  return { ...shape, start_date, end_date };
}

/** The key a shape is kept under: its operation and canonical spelling. */
export function shapeKey(op: Operation, shape: Shape): string {
  const { start_date: _s, end_date: _e, ...canonical } = canonicalQuery(op, withRange(shape, "", ""));
  return `${op}:${JSON.stringify(canonical)}`;
}

/**
 * The day-grain shape a query is fetched at, or null when it cannot be (six dimensions already, or
 * one that would cost more calls). A query grouped by date, or at the finest grain, is at it
 * already. Totals (no dimension) become one record a day, which fits a 101-day piece in one page as
 * the totals did. A breakdown is asked per day only when `rowsPerDay` (its dimensions' known
 * distinct values) says a piece still fits in one page, so the day grain never costs a call more.
 */
export function dayGrain(
  op: Operation,
  query: ReportQuery,
  rowsPerDay: (dims: readonly string[]) => number | undefined = () => undefined,
  maxPieceDays: number = LIMITS.maxRangeDays,
): Shape | null {
  const { start_date: _s, end_date: _e, ...shape } = canonicalQuery(op, query);
  if (!shape.group_by || shape.group_by.includes("date")) return shape;
  if (shape.group_by.length >= LIMITS.maxGroupBy) return null;
  if (shape.group_by.length > 0) {
    const rows = rowsPerDay(shape.group_by);
    if (rows === undefined || rows * (maxPieceDays + 1) > LIMITS.maxPageSize) return null;
  }
  return { ...shape, group_by: ["date", ...shape.group_by] };
}

/**
 * What a kept day costs besides its records (its keys and the row itself), counted in the bound so
 * that days without records, cheap to ask for, cannot grow the store without bound.
 */
const ROW_OVERHEAD_BYTES = 64;

export interface DayStoreConfig {
  /** The reporting time zone: what "today" is. */
  timeZone: string;
  /** How long today's records (a day still under way when fetched) stay current. */
  ttlTodaySeconds: number;
  /** How long a past day within its settle window stays current before it is asked again. */
  ttlPastSeconds: number;
  /** The bound on the records' JSON size together; least recently used days go first past it. */
  maxBytes: number;
}

/**
 * Until when a day fetched at `fetchedAt` answers: for ever once it was settled when fetched (until
 * the totals check or the bound removes it), a short while when it was still under way, else until
 * the recent days are next asked again.
 */
export function freshUntil(day: string, fetchedAt: number, settle: number, config: DayStoreConfig): number {
  const fetchedOn = todayIn(config.timeZone, new Date(fetchedAt));
  if (daysBetween(day, fetchedOn) >= settle) return Number.POSITIVE_INFINITY;
  if (fetchedOn <= day) return fetchedAt + config.ttlTodaySeconds * 1000;
  return fetchedAt + config.ttlPastSeconds * 1000;
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

/** Consecutive days of `[start, end]` for which `has` is false. */
export function missingRuns(start: string, end: string, has: (day: string) => boolean): DateRange[] {
  const out: DateRange[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) {
    if (has(d)) continue;
    const last = out.at(-1);
    if (last && addDays(last.end_date, 1) === d) last.end_date = d;
    else out.push({ start_date: d, end_date: d });
  }
  return out;
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
