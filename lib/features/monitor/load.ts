import "server-only";
/**
 * The Monitor's data, on the server: the four monthly reports through the report gateway (its cache,
 * derivation and fair queue; the viewer's own queue turn), then the programmes evaluated on them.
 * While any month is still being fetched, the answer says which and how far along, and the page asks
 * again; nothing else runs, whoever asks.
 */
import type { ReportQuery } from "@/lib/contract/schemas";
import { observe, plannedCallsFor } from "@/lib/features/dashboards/call-counts";
import type { JobStatus } from "@/lib/core/upstream/jobs";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { queryKey } from "@/lib/core/upstream/records";
import type { MonitorConfig, Program } from "./definitions";
import { disputeRows, evaluatePrograms, midSums, worstFirst, type DisputeRow, type MonthData, type ProgramRow } from "./evaluate";
import { monitorMonths, monitorQuery, type MonitorMonth } from "./months";

/**
 * A month's report as the status line shows it: done (without its records) or still on its way, and
 * the upstream calls it was planned at when this look (or the one that started its fetch) found it
 * not answered (0 when the cache or the kept days answered it).
 */
export type MonthStatus = { month: string; start: string; end: string; plannedCalls: number; status: Exclude<JobStatus, { state: "done" }> | { state: "done"; result: Omit<Extract<JobStatus, { state: "done" }>["result"], "data"> } };

export type MonitorRow = Omit<ProgramRow, "program"> & { programId: string };

export type MonitorAnswer =
  | { kind: "pending"; months: MonthStatus[]; plannedCalls: number }
  /** A month failed or was cancelled: asking again at once would only spend more calls. */
  | { kind: "failed"; months: MonthStatus[]; plannedCalls: number }
  | {
      kind: "ok";
      today: string;
      months: (MonitorMonth & Pick<MonthStatus, "status" | "plannedCalls">)[];
      /** The upstream calls the four months were planned at (0 when nothing had to be fetched). */
      plannedCalls: number;
      programs: Program[];
      rows: MonitorRow[];
      disputes: DisputeRow[];
      alertCost: MonitorConfig["alertCost"];
    };

/**
 * Reports through the gateway, all waited for together up to `waitMs`: each one's status, done from
 * cache at once, or done, still running, failed or cancelled when the wait ends. `expectedCalls`:
 * each query's planned calls, for a new job's place in line and estimate.
 */
export async function settleAll(gateway: ReportGateway, queries: readonly ReportQuery[], owner: string, waitMs: number, expectedCalls?: readonly number[]): Promise<JobStatus[]> {
  const deadline = Date.now() + waitMs;
  return Promise.all(
    queries.map(async (q, i): Promise<JobStatus> => {
      const out = gateway.submit("orders", gateway.parse("orders", q), owner, { expectedCalls: expectedCalls?.[i] ?? 0 });
      if ("cached" in out) return { state: "done", result: out.cached };
      const job = await gateway.settle(out.job.id, Math.max(0, deadline - Date.now()));
      return job?.status ?? out.job.status;
    }),
  );
}

/** A month failed or was cancelled: answering "pending" would have the page ask, and spend, again at once. */
export const anyFailed = (statuses: readonly JobStatus[]) => statuses.some((s) => s.state === "failed" || s.state === "cancelled");

/**
 * What each month's report was planned at, by query, from the look that started its fetch: a later
 * look that joins it while it runs shows that count beside the calls it makes.
 */
const plannedBy = new WeakMap<ReportGateway, Map<string, number>>();
const PLANNED_MAX = 2_000;

/**
 * The calls each query costs as this look finds it: none when the cache answers it; for one in
 * flight, what it was planned at when it started; otherwise the planner's count for
 * the days the store does not keep current (what its job will fetch), remembered for the later looks.
 */
async function planMonths(gateway: ReportGateway, queries: readonly ReportQuery[]): Promise<number[]> {
  let memo = plannedBy.get(gateway);
  if (!memo) plannedBy.set(gateway, (memo = new Map()));
  const known = memo;
  return Promise.all(
    queries.map(async (raw) => {
      const q = gateway.parse("orders", raw);
      const key = queryKey("orders", q);
      const inFlight = gateway.inFlightFor("orders", q) !== null;
      if (!inFlight && gateway.lookup("orders", q)) return 0;
      const remembered = known.get(key);
      if (inFlight && remembered !== undefined) return remembered;
      // A plan that cannot be made (a gateway whose page cap no report fits) counts one call: the
      // month's job then says why it failed.
      const calls = await plannedCallsFor(gateway, "orders", q).catch(() => 1);
      if (known.size >= PLANNED_MAX) known.clear();
      known.set(key, calls);
      return calls;
    }),
  );
}

export async function loadMonitor(gateway: ReportGateway, config: MonitorConfig, today: string, owner: string, waitMs: number): Promise<MonitorAnswer> {
  const months = monitorMonths(today);
  const queries = months.map(monitorQuery);
  // As each month's result counts the calls made for this look (none when the cache answered it).
  const planned = await planMonths(gateway, queries);
  const settled = await settleAll(gateway, queries, owner, waitMs, planned);
  const statuses: MonthStatus[] = months.map((m, i) => ({ month: m.month, start: m.start, end: m.end, plannedCalls: planned[i]!, status: withoutData(settled[i]!) }));
  const plannedCalls = planned.reduce((a, b) => a + b, 0);
  if (anyFailed(settled)) return { kind: "failed", months: statuses, plannedCalls };
  if (!settled.every((s) => s.state === "done")) return { kind: "pending", months: statuses, plannedCalls };

  const data = new Map<string, MonthData>();
  for (const [i, m] of months.entries()) {
    const status = settled[i]!;
    if (status.state !== "done") continue;
    // What the months show of each dimension (MIDs, brands), for the next plan's page counts.
    observe(gateway, "orders", gateway.parse("orders", queries[i]!), status.result);
    data.set(m.month, { month: m.month, daysInMonth: m.daysInMonth, daysElapsed: m.daysElapsed, mids: midSums(status.result.data) });
  }
  const shown = months.filter((m) => !m.salesOnly);
  const rows = evaluatePrograms(config, data, shown.map((m) => m.month)).sort(worstFirst);
  return {
    kind: "ok",
    today,
    months: months.map((m, i) => ({ ...m, plannedCalls: planned[i]!, status: statuses[i]!.status })),
    plannedCalls,
    programs: config.programs,
    rows: rows.map(({ program, ...r }) => ({ ...r, programId: program.id })),
    disputes: shown.flatMap((m) => disputeRows(config, data.get(m.month)!)),
    alertCost: config.alertCost,
  };
}

/** A status as the page receives it: a finished report without its records. */
export function withoutData(s: JobStatus): MonthStatus["status"] {
  if (s.state !== "done") return s;
  const { data: _data, ...result } = s.result;
  return { state: "done", result };
}
