import "server-only";
/**
 * How many upstream calls a dashboard's queries make, told before and while they are made: what the
 * answers drawn so far showed of each dimension (the planner's cardinalities), the estimate each job
 * was planned with, the count a job makes once the service has said how many records each part
 * holds, and the days the day store keeps current (which cost nothing). Per gateway, in memory.
 */
import type { Operation } from "@/lib/contract";
import { dimensionsFor } from "@/lib/contract/catalog";
import type { ReportQuery } from "@/lib/contract/schemas";
import { queryKey } from "@/lib/core/upstream/records";
import type { JobResult, JobView, ReportGateway } from "@/lib/core/upstream/gateway";
import { planQueries, type PlanOptions, type PlannedQuery } from "./plan";

/**
 * Distinct values of each dimension in the answers this gateway's dashboards have drawn: what the
 * planner counts pages with instead of its defaults once it has seen the data (a default errs high,
 * 5,000 BINs where a merchant may have 2,000, and a plan of 48 calls then takes 26). The most seen in
 * any one answer, so a longer range than any seen may still hold more: the fetch then says so, as the
 * service tells each part's record count, and the step's calls change to the count it makes.
 */
interface Observed {
  distinct: Map<string, number>;
  /** Answers already counted, by query and fetch time (a poll sees the same answers again). */
  counted: Set<string>;
}
const observedBy = new WeakMap<ReportGateway, Observed>();
const COUNTED_MAX = 2_000;

function observedOf(gateway: ReportGateway): Observed {
  let o = observedBy.get(gateway);
  if (!o) observedBy.set(gateway, (o = { distinct: new Map(), counted: new Set() }));
  return o;
}

export function observe(gateway: ReportGateway, op: Operation, source: ReportQuery, answer: JobResult): void {
  const o = observedOf(gateway);
  const key = `${queryKey(op, source)}@${answer.fetched_at}`;
  if (o.counted.has(key) || answer.data.length === 0) return;
  if (o.counted.size >= COUNTED_MAX) o.counted.clear();
  o.counted.add(key);
  const first = answer.data[0]!;
  for (const d of dimensionsFor(op)) {
    if (d.name === "date" || !(d.name in first)) continue;
    const values = new Set<unknown>();
    for (const r of answer.data) values.add(r[d.name]);
    // A filtered answer holds fewer values than the dimension has: the largest answer says most.
    if (values.size > (o.distinct.get(d.name) ?? 0)) o.distinct.set(d.name, values.size);
  }
}

/**
 * The planner's estimate for a query when its job started, by query and start: later looks (whose
 * planner may know more by then) show the count the job was planned with, and then the count it makes.
 */
const plannedBy = new WeakMap<ReportGateway, Map<string, number>>();

function plannedMemo(gateway: ReportGateway): Map<string, number> {
  let m = plannedBy.get(gateway);
  if (!m) plannedBy.set(gateway, (m = new Map()));
  return m;
}

/** What a finished answer had been planned at, if this process planned it (0 when it came from elsewhere). */
export function plannedFor(gateway: ReportGateway, op: Operation, query: ReportQuery): number | undefined {
  return plannedMemo(gateway).get(queryKey(op, query));
}

/**
 * A job step's calls: the count it makes once the service has said how many records each part
 * holds (or once done), before that the planner's estimate (never fewer than the job already knows
 * it needs); and the estimate it was planned with, kept from the look that started it.
 */
export function jobCalls(gateway: ReportGateway, job: JobView, estimate: number | undefined, opts: PlanOptions): { calls: number; callsKnown: boolean; plannedCalls: number } {
  const memo = plannedMemo(gateway);
  const key = queryKey(job.operation, job.query);
  let planned = memo.get(key);
  if (planned === undefined) {
    planned = estimate ?? planQueries([{ key: "q", op: job.operation, query: job.query }], opts).queries[0]?.estimatedCalls ?? 1;
    if (memo.size >= COUNTED_MAX) memo.clear();
    memo.set(key, planned);
  }
  const s = job.status;
  if (s.state === "done") return { calls: s.result.upstream_calls, callsKnown: true, plannedCalls: planned };
  if (s.state === "queued" || s.state === "fetching") {
    return s.calls_exact ? { calls: s.calls, callsKnown: true, plannedCalls: planned } : { calls: Math.max(planned, s.calls), callsKnown: false, plannedCalls: planned };
  }
  return { calls: 0, callsKnown: true, plannedCalls: planned };
}

/**
 * The planner's options for this gateway: its page cap, what its answers showed of each dimension,
 * and the day the answers run up to (a cohort's young initial dates hold fewer billing cycles).
 */
export function planOptionsFor(gateway: ReportGateway, today?: string): PlanOptions {
  const o = observedOf(gateway);
  return { pageCap: gateway.config.pageCap, cardinality: (d) => o.distinct.get(d), ...(today ? { today } : {}) };
}

/**
 * The plan's queries with their calls counted for the days the gateway's day store does not keep
 * current (what their jobs will fetch), not for their whole ranges; days asked again are counted
 * by the records they held.
 */
export async function withKeptDays(gateway: ReportGateway, queries: readonly PlannedQuery[], opts: PlanOptions): Promise<PlannedQuery[]> {
  return Promise.all(
    queries.map(async (q) => {
      if (q.problem !== undefined) return q;
      const pieces = await gateway.piecesToFetch(q.op, q.query);
      if (!pieces) return q;
      const estimatedCalls = pieces.reduce(
        (n, p) => n + (p.calls ?? planQueries([{ key: "p", op: q.op, query: { ...q.query, ...p.range } }], opts).queries[0]?.estimatedCalls ?? 1),
        0,
      );
      return { ...q, estimatedCalls };
    }),
  );
}

/**
 * The upstream calls one query not answered from the cache would make now, planned as a dashboard's
 * query is: for the days the store does not keep current, with what this gateway's answers have
 * shown of each dimension (the Monitor's months, which it plans one by one).
 */
export async function plannedCallsFor(gateway: ReportGateway, op: Operation, query: ReportQuery): Promise<number> {
  const opts = planOptionsFor(gateway);
  const planned = planQueries([{ key: "q", op, query }], opts).queries;
  const [q] = await withKeptDays(gateway, planned, opts);
  return q?.estimatedCalls ?? 1;
}
