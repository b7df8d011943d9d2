import "server-only";
/**
 * Running a dashboard through the report gateway. Every tile's requests are answered from the cache
 * when they can be (exactly or derived), joined to a job in flight that can answer them, and the rest
 * are planned together (./plan.ts) into the fewest upstream queries the tiles derive from. Stateless:
 * each call looks again, so a poll paints whatever has arrived since, and two people opening the same
 * dashboard join the same jobs because the planner is deterministic.
 */
import type { Operation, ReportRecord } from "@/lib/contract";
import { dimensionsFor } from "@/lib/contract/catalog";
import type { ReportQuery } from "@/lib/contract/schemas";
import { canDerive, derive } from "@/lib/core/upstream/derive";
import { canonicalQuery, queryKey } from "@/lib/core/upstream/records";
import type { JobResult, JobView, ReportGateway } from "@/lib/core/upstream/gateway";
import { planQueries, type PlanOptions, type PlannedQuery, type PlanRequest } from "./plan";
import { type DashboardState } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests, tileTitle, type TileSpec } from "@/lib/features/dashboards/tile-spec";
import { buildTileModel, type TileModel } from "./tiles";

/** Where one upstream query of the plan stands. */
export type QueryState =
  | { state: "cached"; fetched_at: string }
  | {
      state: "queued";
      position: number;
      estimated_start: string;
      /** When its last call should have answered. */
      estimated_done: string;
      /** Calls that start before its last one (everyone's, its own included); null when not known. */
      last_position: number | null;
    }
  | { state: "fetching"; estimated_done: string | null; last_position: number | null }
  | { state: "done"; fetched_at: string }
  | { state: "failed"; message: string };

export interface PlanStep {
  op: Operation;
  query: ReportQuery;
  /**
   * Upstream calls it needs (0 from cache): the planner's estimate until the service has said how
   * many records each part holds, then the count the fetch makes.
   */
  calls: number;
  /** Whether `calls` is the count the fetch makes (known, or made) rather than an estimate. */
  callsKnown: boolean;
  /** The planner's estimate for the query, before anything was fetched (0 from cache). */
  plannedCalls: number;
  /** The tiles it answers, by their 1-based place and title. */
  tiles: { index: number; title: string }[];
  status: QueryState;
}

export type TileOutcome =
  | { status: "done"; model: TileModel; fetched_at: string; stale: boolean }
  | { status: "pending"; step: number; position: number | null; estimated_start: string | null }
  | { status: "failed"; message: string }
  | { status: "conflict"; message: string };

export interface TileAnswer {
  index: number;
  title: string;
  kind: TileSpec["kind"];
  notes: string[];
  /** What the tile keeps of its own instead of the dashboard's settings, one badge each. */
  keeps: string[];
  outcome: TileOutcome;
}

export interface DashboardAnswer {
  today: string;
  tiles: TileAnswer[];
  plan: PlanStep[];
  /** Calls if every tile request were fetched on its own (what planning saved is naive − planned). */
  naiveCalls: number;
  plannedCalls: number;
  /** The oldest answer shown, for "data as of". */
  asOf: string | null;
}

/** A tile's requests: its own, its comparison's, and the compared days' coverage when the comparison cannot tell it. */
type Part = "main" | "comparison" | "coverage";

interface Need {
  tile: number;
  part: Part;
  op: Operation;
  query: ReportQuery;
}

export interface RunOptions {
  owner: string;
  /** How long to hold on for the first pending answer (long polling); 0 answers at once. */
  waitMs: number;
  /** Share visitors: an expired answer is shown at once (with its age) while a newer one is fetched. */
  acceptStale?: boolean;
  /** Frozen answers (a snapshot) instead of the gateway. */
  frozen?: { op: Operation; query: ReportQuery; fetched_at: string; data: ReportRecord[] }[];
}

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
function plannedFor(gateway: ReportGateway, op: Operation, query: ReportQuery): number | undefined {
  return plannedMemo(gateway).get(queryKey(op, query));
}

/**
 * A job step's calls: the count it makes once the service has said how many records each part
 * holds (or once done), before that the planner's estimate (never fewer than the job already knows
 * it needs); and the estimate it was planned with, kept from the look that started it.
 */
function jobCalls(gateway: ReportGateway, job: JobView, estimate: number | undefined, opts: PlanOptions): { calls: number; callsKnown: boolean; plannedCalls: number } {
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
function planOptionsFor(gateway: ReportGateway, today?: string): PlanOptions {
  const o = observedOf(gateway);
  return { pageCap: gateway.config.pageCap, cardinality: (d) => o.distinct.get(d), ...(today ? { today } : {}) };
}

function tileNeeds(state: DashboardState, today: string) {
  return state.tiles.map((tile, i) => {
    const spec = effectiveTile(state, tile, today);
    const requests = tileRequests(spec, today);
    return { index: i + 1, tile, spec, requests, title: tileTitle(tile, spec) };
  });
}

/** The plan's requests: every tile's main request and its comparison's. */
function needsOf(tiles: ReturnType<typeof tileNeeds>): Need[] {
  const out: Need[] = [];
  for (const t of tiles) {
    if (!t.requests) continue;
    out.push({ tile: t.index, part: "main", op: t.requests.main.op, query: canonicalQuery(t.requests.main.op, t.requests.main.request) });
    const c = t.requests.comparison;
    if (c) out.push({ tile: t.index, part: "comparison", op: c.op, query: canonicalQuery(c.op, c.request) });
    const v = t.requests.coverage;
    if (v) out.push({ tile: t.index, part: "coverage", op: v.op, query: canonicalQuery(v.op, v.request) });
  }
  return out;
}

const needKey = (n: Pick<Need, "tile" | "part">) => `${n.tile}:${n.part}`;

/**
 * The queries a dashboard's tiles all derive from, planned as if nothing were cached: what keeps
 * the whole dashboard warm (lib/features/sharing/warm.ts).
 */
export function dashboardQueries(gateway: ReportGateway, state: DashboardState, today: string): { op: Operation; query: ReportQuery }[] {
  const needs = needsOf(tileNeeds(state, today));
  const plan = planQueries(
    needs.map((n) => ({ key: needKey(n), op: n.op, query: n.query })),
    planOptionsFor(gateway, today),
  );
  return plan.queries.map((q) => ({ op: q.op, query: q.query }));
}

function statusOf(job: JobView): QueryState {
  const s = job.status;
  switch (s.state) {
    case "queued":
      return { state: "queued", position: s.position, estimated_start: s.estimated_start, estimated_done: s.estimated_done, last_position: s.last_position ?? null };
    case "fetching":
      return { state: "fetching", estimated_done: s.estimated_done ?? null, last_position: s.last_position ?? null };
    case "done":
      return { state: "done", fetched_at: s.result.fetched_at };
    case "failed":
      return { state: "failed", message: `${s.error.message} ${s.error.action}` };
    case "cancelled":
      return { state: "failed", message: "The query was cancelled; open the dashboard again." };
  }
}

/**
 * One look at a dashboard: what can be drawn now, and the plan for the rest (submitted, so the next
 * look finds it further on). With `waitMs`, holds on until the first pending query finishes.
 */
export async function runDashboard(gateway: ReportGateway, state: DashboardState, today: string, opts: RunOptions): Promise<DashboardAnswer> {
  const tiles = tileNeeds(state, today);
  const needs = needsOf(tiles);
  let look = await lookOnce(gateway, tiles, needs, today, opts);
  if (opts.waitMs > 0 && look.pendingJobs.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ...look.pendingJobs.map((id) => gateway.settle(id, opts.waitMs)),
      new Promise((r) => (timer = setTimeout(r, opts.waitMs))),
    ]);
    clearTimeout(timer);
    look = await lookOnce(gateway, tiles, needs, today, opts);
  }
  return look.answer;
}

/** A frozen answer a request derives from, as the gateway's cache would derive it. */
function fromFrozen(n: Need, frozen: NonNullable<RunOptions["frozen"]>): JobResult | null {
  const f = frozen.find((x) => x.op === n.op && canDerive(n.op, n.query, x.query));
  if (!f) return null;
  const data = derive(n.op, n.query, f.data);
  return { source: "cache", fetched_at: f.fetched_at, upstream_calls: 0, total: data.length, data };
}

/**
 * The plan's queries with their calls counted for the days the gateway's day store does not keep
 * current (what their jobs will fetch), not for their whole ranges; days asked again are counted
 * by the records they held.
 */
async function withKeptDays(gateway: ReportGateway, queries: readonly PlannedQuery[], opts: PlanOptions): Promise<PlannedQuery[]> {
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

async function lookOnce(gateway: ReportGateway, tiles: ReturnType<typeof tileNeeds>, needs: Need[], today: string, opts: RunOptions) {
  // 1. What is answered already: frozen answers, the cache (exact or derived), or (shares) a stale one.
  const answers = new Map<string, JobResult & { stale: boolean }>();
  const steps: PlanStep[] = [];
  const stepOf = new Map<string, number>();
  for (const n of needs) {
    const hit = opts.frozen ? fromFrozen(n, opts.frozen) : gateway.lookup(n.op, n.query);
    if (hit) answers.set(needKey(n), { ...hit, stale: false });
  }
  // 2. The rest: joined to a job in flight that can answer them, else planned together and submitted.
  // A snapshot never fetches: what its frozen answers cannot give is shown as failed.
  const open = opts.frozen ? [] : needs.filter((n) => !answers.has(needKey(n)));
  const jobs = new Map<string, JobView>();
  const failures = new Map<string, string>();
  const toPlan: Need[] = [];
  // Requests whose merged query failed (a plan's estimate was wrong, e.g. past the page cap) are
  // fetched on their own; a request whose own query failed is shown as failed, not sent again.
  const alone: Need[] = [];
  for (const n of open) {
    const running = gateway.inFlightFor(n.op, n.query);
    if (!running) {
      const failed = gateway.recentFailureFor(n.op, n.query);
      const own = failed && queryKey(failed.operation, failed.query) === queryKey(n.op, n.query);
      if (failed && own && failed.status.state === "failed") failures.set(needKey(n), `${failed.status.error.message} ${failed.status.error.action}`);
      else if (failed) alone.push(n);
      else toPlan.push(n);
      continue;
    }
    // Joined, not only watched: the job then counts this caller as waiting for it, at their priority.
    const joined = gateway.submit(running.operation, running.query, opts.owner);
    if ("job" in joined) jobs.set(needKey(n), joined.job);
    else {
      const hit = gateway.lookup(n.op, n.query);
      if (hit) answers.set(needKey(n), { ...hit, stale: false });
      else toPlan.push(n);
    }
  }
  const requests: PlanRequest[] = toPlan.map((n) => ({ key: needKey(n), op: n.op, query: n.query }));
  const planOpts = planOptionsFor(gateway, today);
  const plan = planQueries(requests, planOpts);
  const queries = [...(await withKeptDays(gateway, plan.queries, planOpts)), ...alone.map((n) => ({ op: n.op, query: n.query, estimatedCalls: 1, serves: [needKey(n)] }))];
  for (const q of queries) {
    let view: JobView | null = null;
    let failed: string | null = null;
    try {
      const out = gateway.submit(q.op, q.query, opts.owner, { expectedCalls: q.estimatedCalls });
      if ("cached" in out) {
        // Answered while we planned (another caller's job finished): derive each request now.
        for (const key of q.serves) {
          const n = [...toPlan, ...alone].find((x) => needKey(x) === key)!;
          const hit = gateway.lookup(n.op, n.query);
          if (hit) answers.set(key, { ...hit, stale: false });
        }
        continue;
      }
      view = out.job;
    } catch (e) {
      failed = e instanceof Error ? e.message : String(e);
    }
    for (const key of q.serves) {
      if (view) jobs.set(key, view);
      if (failed) failures.set(key, failed);
    }
  }
  // 3. Shares: what is still pending is shown from its last answer, however old, while it is fetched.
  if (opts.acceptStale) {
    for (const n of open) {
      if (answers.has(needKey(n))) continue;
      const last = gateway.latest(n.op, n.query);
      if (last) answers.set(needKey(n), { ...last.result, stale: !last.fresh });
    }
  }

  // What the answers show of each dimension, for the next plan's page counts.
  if (!opts.frozen) {
    for (const n of needs) {
      const a = answers.get(needKey(n));
      if (a) observe(gateway, n.op, a.derived_from?.query ?? n.query, a);
    }
  }

  // The plan as shown: one step per answer source.
  const addStep = (key: string, make: () => PlanStep): number => {
    let i = stepOf.get(key);
    if (i === undefined) {
      i = steps.length;
      steps.push(make());
      stepOf.set(key, i);
    }
    return i;
  };
  const stepFor = new Map<string, number>();
  const titleOf = (tile: number) => tiles[tile - 1]!.title;
  for (const n of needs) {
    const key = needKey(n);
    const a = answers.get(key);
    const job = jobs.get(key);
    let i: number;
    if (a && !job) {
      const src = a.derived_from?.query ?? n.query;
      i = addStep(`a:${n.op}:${JSON.stringify(src)}:${a.fetched_at}`, () => ({
        op: n.op,
        query: src,
        calls: a.source === "upstream" ? a.upstream_calls : 0,
        callsKnown: true,
        plannedCalls: a.source === "upstream" ? (plannedFor(gateway, n.op, src) ?? a.upstream_calls) : 0,
        tiles: [],
        status: a.source === "upstream" ? { state: "done", fetched_at: a.fetched_at } : { state: "cached", fetched_at: a.fetched_at },
      }));
    } else if (job) {
      const planned = queries.find((q) => q.serves.includes(key));
      i = addStep(`j:${job.id}`, () => ({ op: job.operation, query: job.query, ...jobCalls(gateway, job, planned?.estimatedCalls, planOpts), tiles: [], status: statusOf(job) }));
    } else {
      i = addStep(`f:${key}`, () => ({ op: n.op, query: n.query, calls: 0, callsKnown: true, plannedCalls: 0, tiles: [], status: { state: "failed", message: failures.get(key) ?? (opts.frozen ? "This snapshot holds no answer for this tile." : "Not answered.") } }));
    }
    stepFor.set(key, i);
    const step = steps[i]!;
    if (!step.tiles.some((t) => t.index === n.tile)) step.tiles.push({ index: n.tile, title: titleOf(n.tile) });
  }

  const out: TileAnswer[] = tiles.map((t) => {
    const base = { index: t.index, title: t.title, kind: t.spec.kind, notes: t.spec.notes, keeps: t.spec.keeps };
    if (!t.requests) return { ...base, outcome: { status: "conflict", message: t.spec.conflict ?? "This tile cannot run." } };
    const parts: Part[] = ["main", ...(t.requests.comparison ? (["comparison"] as const) : []), ...(t.requests.coverage ? (["coverage"] as const) : [])];
    for (const part of parts) {
      const key = needKey({ tile: t.index, part });
      const failure = failures.get(key);
      if (failure) return { ...base, outcome: { status: "failed", message: failure } };
      const step = steps[stepFor.get(key)!]!;
      if (step.status.state === "failed") return { ...base, outcome: { status: "failed", message: step.status.message } };
      if (!answers.has(key)) {
        const s = step.status;
        return {
          ...base,
          outcome: { status: "pending", step: stepFor.get(key)! + 1, position: s.state === "queued" ? s.position : null, estimated_start: s.state === "queued" ? s.estimated_start : null },
        };
      }
    }
    const main = answers.get(needKey({ tile: t.index, part: "main" }))!;
    const cmp = t.requests.comparison ? answers.get(needKey({ tile: t.index, part: "comparison" }))! : null;
    const cov = t.requests.coverage ? answers.get(needKey({ tile: t.index, part: "coverage" }))! : null;
    const model = buildTileModel(t.spec, t.requests, { main: main.data, comparison: cmp?.data ?? null, coverage: cov?.data ?? null }, today);
    const fetched = [main.fetched_at, cmp?.fetched_at, cov?.fetched_at].filter((x): x is string => !!x).sort()[0]!;
    return { ...base, outcome: { status: "done", model, fetched_at: fetched, stale: main.stale || (cmp?.stale ?? false) || (cov?.stale ?? false) } };
  });

  // Held on for only when a tile has nothing to show: a stale answer is drawn at once.
  const pendingJobs = [
    ...new Set(
      [...jobs.entries()].filter(([key, j]) => !answers.has(key) && (j.status.state === "queued" || j.status.state === "fetching")).map(([, j]) => j.id),
    ),
  ];
  const asOf = out.flatMap((t) => (t.outcome.status === "done" ? [t.outcome.fetched_at] : [])).sort()[0] ?? null;
  return {
    pendingJobs,
    answer: {
      today,
      tiles: out,
      plan: steps,
      naiveCalls: planQueries(needs.map((n) => ({ key: needKey(n), op: n.op, query: n.query })), planOpts).naiveCalls,
      plannedCalls: steps.reduce((s, x) => s + (x.status.state === "cached" ? 0 : x.calls), 0),
      asOf,
    } satisfies DashboardAnswer,
  };
}
