import "server-only";
/**
 * Answers put together from the day store: which day grain a question is kept at, what a job for it
 * still has to fetch (what planners count calls from), the answer made of the kept days and a fetch
 * of the others, and the background's two duties: naming what people used recently so it is kept
 * current, and checking settled days against the upstream's totals. The store itself (its tables,
 * settle windows and bound) is ./day-store.ts; the gateway (./gateway.ts) decides when to use this.
 */
import { LIMITS, getDimension, toUnits, type Operation, type ReportRecord } from "@/lib/contract";
import { addDays, daysBetween } from "@/lib/contract/dates";
import { derive } from "./derive";
import { dayGrain, settleDays, withRange, type Shape } from "./day-shape";
import type { DayStore, KeptDays } from "./day-store";
import type { ReportFetcher } from "./fetcher";
import type { JobResult, JobRun } from "./jobs";
import { BACKGROUND_OWNER } from "./quota";
import { fetchRanges, type DateRange } from "./range-pieces";
import { aggregate, canonicalQuery, effectiveMetrics, type ReportQuery } from "./records";
import { logShared } from "./shared";

const minDay = (a: string, b: string) => (a < b ? a : b);

export class DayAnswers {
  constructor(
    private readonly days: DayStore,
    private readonly fetcher: ReportFetcher,
    private readonly maxPieceDays: number | undefined,
  ) {}

  /**
   * The day grain a query is kept at, or null when it is not kept by day. A breakdown is asked per
   * day only by dimensions of a known, small set of values (the catalog's enumerations), where a
   * 101-day piece surely stays one page.
   */
  shape(op: Operation, query: ReportQuery): Shape | null {
    return dayGrain(
      op,
      query,
      (dims) => {
        let rows = 1;
        for (const d of dims) {
          const values = getDimension(d)?.values;
          if (!values) return undefined;
          rows *= values.length + 1; // + null, where the dimension does not apply
        }
        return rows;
      },
      this.maxPieceDays,
    );
  }

  /**
   * The pieces a job for the query, kept at `shape`, would fetch now, each with its calls when the
   * store knows them (every day of it kept but no longer current: its pages counted from the records
   * it held); none when every day is kept current; null when the store cannot be read.
   */
  async piecesToFetch(op: Operation, query: ReportQuery, shape: Shape): Promise<{ range: DateRange; calls: number | null }[] | null> {
    try {
      const { runs, staleRows } = await this.days.missing(op, shape, query.start_date, query.end_date);
      return fetchRanges(runs, this.maxPieceDays)
        .flatMap((r) => this.fetcher.pieces({ ...query, ...r }))
        .map((range) => {
          let rows = 0;
          for (let d = range.start_date; d <= range.end_date; d = addDays(d, 1)) {
            const n = staleRows.get(d);
            if (n === undefined) return { range, calls: null };
            rows += n;
          }
          return { range, calls: Math.max(1, Math.ceil(rows / LIMITS.maxPageSize)) };
        });
    } catch (e) {
      logShared("kept days not read", e);
      return null;
    }
  }

  /**
   * The kept days of the query's range, read from the day store, and the days it does not keep
   * current, fetched at the day grain and kept. Calls for the missing runs are made only where they
   * cost no more than the whole span between them (kept days in the middle are then asked again).
   * A store that cannot be read costs the report its calls (`fetchWhole`), not its answer.
   */
  async answer(run: JobRun, shape: Shape, fetchWhole: () => Promise<JobResult>): Promise<JobResult> {
    const days = this.days;
    const { start_date: start, end_date: end } = run.query;
    let kept: KeptDays;
    try {
      kept = await days.read(run.op, shape, start, end);
    } catch (e) {
      logShared("kept days not read", e);
      return fetchWhole();
    }
    const toFetch = fetchRanges(kept.missing, this.maxPieceDays);
    let calls = 0;
    let fetchedAt = days.now();
    const fetched: ReportRecord[] = [];
    if (toFetch.length > 0) {
      const res = await this.fetcher.fetch({ ...run, query: withRange(shape, start, end) }, run.progress, toFetch);
      calls = res.calls;
      fetched.push(...res.data);
      fetchedAt = days.now();
      for (const r of toFetch) {
        const inRange = res.data.filter((rec) => String(rec.date) >= r.start_date && String(rec.date) <= r.end_date);
        await days.write(run.op, shape, r.start_date, r.end_date, inRange, fetchedAt).catch((e: unknown) => logShared("kept days not written", e));
      }
    }
    const refetched = new Set<string>();
    for (const r of toFetch) for (let d = r.start_date; d <= r.end_date; d = addDays(d, 1)) refetched.add(d);
    const records = [...fetched];
    let oldest = toFetch.length > 0 ? fetchedAt : Number.POSITIVE_INFINITY;
    let keptDays = 0;
    for (const [day, k] of kept.days) {
      if (refetched.has(day)) continue;
      records.push(...k.records);
      oldest = Math.min(oldest, k.fetchedAt);
      keptDays++;
    }
    const data = derive(run.op, run.query, records);
    const totalDays = daysBetween(start, end) + 1;
    return {
      source: calls > 0 ? "upstream" : "cache",
      fetched_at: new Date(Number.isFinite(oldest) ? oldest : fetchedAt).toISOString(),
      upstream_calls: calls,
      total: data.length,
      data,
      days: { kept: keptDays, fetched: totalDays - keptDays },
    };
  }

  /**
   * The questions that keep what people looked at recently current: each kept shape used since
   * `usedSince` whose days reach into its settle window, over its days from the day before that
   * window (or its first kept day) to today. Asked as background work, they fetch only the new and unsettled
   * days, so the first look of the morning is answered from the store.
   */
  async recentShapeQueries(usedSince: number): Promise<{ op: Operation; query: ReportQuery }[]> {
    const today = this.days.today();
    return (await this.days.shapesUsedSince(usedSince)).flatMap((k) => {
      // A day before the window too: yesterday's look fetched it while it was still unsettled.
      const from = addDays(today, -settleDays(k.op, k.shape));
      if (k.lastDay < from) return [];
      return [{ op: k.op, query: canonicalQuery(k.op, withRange(k.shape, k.firstDay > from ? k.firstDay : from, today)) }];
    });
  }

  /**
   * Compares the settled days the day store keeps for shapes used since `usedSince` with the
   * upstream's daily totals of the same metrics and filters (one call per 101 days of a shape, as
   * background work), and forgets the days whose totals moved, so they are fetched again. A
   * breakdown's records can also move between its rows within a day (an attempt's sales type
   * corrected) with the day's totals unchanged: when no total moved, its rows' totals over the checked
   * days are compared too (a call more per 101 days, more for many rows), and on a difference every
   * checked day is forgotten, since that comparison cannot say which day moved. A shape is checked
   * at most once per `everyMs`. Returns what it looked at, found and spent.
   */
  async checkKeptDays(opts: { usedSince: number; everyMs: number; signal?: AbortSignal }): Promise<{ shapes: number; moved: number; calls: number }> {
    const days = this.days;
    const out = { shapes: 0, moved: 0, calls: 0 };
    const now = days.now();
    const today = days.today();
    for (const kept of await days.shapesUsedSince(opts.usedSince)) {
      if (opts.signal?.aborted) break;
      if (kept.checkedAt !== null && kept.checkedAt > now - opts.everyMs) continue;
      const end = minDay(kept.lastDay, addDays(today, -settleDays(kept.op, kept.shape)));
      if (end >= kept.firstDay) {
        const metrics = effectiveMetrics(kept.op, withRange(kept.shape, kept.firstDay, end));
        const totals = canonicalQuery(kept.op, { start_date: kept.firstDay, end_date: end, group_by: ["date"], metrics, filters: kept.shape.filters });
        const res = await this.fetcher.fetch(
          { op: kept.op, query: totals, owner: () => BACKGROUND_OWNER, signal: opts.signal ?? new AbortController().signal },
          () => undefined,
        );
        out.calls += res.calls;
        const upstream = new Map(res.data.map((r) => [String(r.date), r]));
        const differ = (a: ReportRecord | undefined, b: ReportRecord | undefined) => metrics.some((m) => toUnits(m, Number(a?.[m] ?? 0)) !== toUnits(m, Number(b?.[m] ?? 0)));
        const keptDays = await days.keptDays(kept.key, kept.firstDay, end);
        let moved = keptDays.filter((day) => differ(aggregate(day.records, [], metrics)[0], upstream.get(day.day))).map((day) => day.day);
        const dims = (kept.shape.group_by ?? []).filter((d) => d !== "date");
        if (moved.length === 0 && dims.length > 0 && keptDays.length > 0) {
          const rows = canonicalQuery(kept.op, { ...totals, group_by: dims });
          const byRow = await this.fetcher.fetch(
            { op: kept.op, query: rows, owner: () => BACKGROUND_OWNER, signal: opts.signal ?? new AbortController().signal },
            () => undefined,
          );
          out.calls += byRow.calls;
          // A range of more than one piece comes back as a piece's rows each: summed into one row each.
          const rowKey = (r: ReportRecord) => JSON.stringify(dims.map((d) => r[d] ?? null));
          const theirs = new Map(aggregate(byRow.data, dims, metrics).map((r) => [rowKey(r), r]));
          const ours = aggregate(keptDays.flatMap((day) => day.records), dims, metrics);
          const keys = new Set([...theirs.keys(), ...ours.map(rowKey)]);
          const mine = new Map(ours.map((r) => [rowKey(r), r]));
          if ([...keys].some((k) => differ(mine.get(k), theirs.get(k)))) moved = keptDays.map((day) => day.day);
        }
        await days.forget(kept.key, moved);
        out.moved += moved.length;
      }
      await days.markChecked(kept.key, now);
      out.shapes++;
    }
    return out;
  }
}
