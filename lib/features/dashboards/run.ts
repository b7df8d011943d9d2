import "server-only";
/**
 * Running a dashboard through the report gateway. Every tile's requests are answered from the cache
 * when they can be (exactly or derived), joined to a job in flight that can answer them, and the rest
 * are planned together (./plan.ts) into the fewest upstream queries the tiles derive from. Stateless:
 * each call looks again, so a poll paints whatever has arrived since, and two people opening the same
 * dashboard join the same jobs because the planner is deterministic.
 */
import type { Operation, ReportRecord } from "@/lib/contract";
import type { ReportQuery } from "@/lib/contract/schemas";
import { canDerive, derive } from "@/lib/core/upstream/derive";
import { canonicalQuery, queryKey } from "@/lib/core/upstream/records";
import type { JobResult, JobView, ReportGateway } from "@/lib/core/upstream/gateway";
import { planQueries, type PlanRequest } from "./plan";
import { jobCalls, observe, planOptionsFor, plannedFor, withKeptDays } from "./call-counts";
import { type DashboardState } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests, tileTitle } from "@/lib/features/dashboards/tile-spec";
import { buildTileModel } from "./tiles";
import type { DashboardAnswer, PlanStep, QueryState, TileAnswer } from "./answer";

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
 * the whole dashboard warm (lib/features/warming/warm.ts).
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
