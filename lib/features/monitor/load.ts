import "server-only";
/**
 * The Monitor's data, on the server: the four monthly reports through the report gateway (its cache,
 * derivation and fair queue; the viewer's own queue turn), then the programmes evaluated on them.
 * While any month is still being fetched, the answer says which and how far along, and the page asks
 * again; nothing else runs, whoever asks.
 */
import type { ReportQuery } from "@/lib/contract/schemas";
import type { JobStatus } from "@/lib/core/upstream/jobs";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import type { MonitorConfig, Program } from "./definitions";
import { disputeRows, evaluatePrograms, midSums, worstFirst, type DisputeRow, type MonthData, type ProgramRow } from "./evaluate";
import { monitorMonths, monitorQuery, type MonitorMonth } from "./months";

/** A month's report as the status line shows it: done (without its records) or still on its way. */
export type MonthStatus = { month: string; start: string; end: string; status: Exclude<JobStatus, { state: "done" }> | { state: "done"; result: Omit<Extract<JobStatus, { state: "done" }>["result"], "data"> } };

export type MonitorRow = Omit<ProgramRow, "program"> & { programId: string };

export type MonitorAnswer =
  | { kind: "pending"; months: MonthStatus[] }
  /** A month failed or was cancelled: asking again at once would only spend more calls. */
  | { kind: "failed"; months: MonthStatus[] }
  | {
      kind: "ok";
      today: string;
      months: (MonitorMonth & { status: MonthStatus["status"] })[];
      programs: Program[];
      rows: MonitorRow[];
      disputes: DisputeRow[];
      alertCost: MonitorConfig["alertCost"];
    };

/**
 * Reports through the gateway, all waited for together up to `waitMs`: each one's status, done from
 * cache at once, or done, still running, failed or cancelled when the wait ends.
 */
export async function settleAll(gateway: ReportGateway, queries: readonly ReportQuery[], owner: string, waitMs: number): Promise<JobStatus[]> {
  const deadline = Date.now() + waitMs;
  return Promise.all(
    queries.map(async (q): Promise<JobStatus> => {
      const out = gateway.submit("orders", gateway.parse("orders", q), owner);
      if ("cached" in out) return { state: "done", result: out.cached };
      const job = await gateway.settle(out.job.id, Math.max(0, deadline - Date.now()));
      return job?.status ?? out.job.status;
    }),
  );
}

/** A month failed or was cancelled: answering "pending" would have the page ask, and spend, again at once. */
export const anyFailed = (statuses: readonly JobStatus[]) => statuses.some((s) => s.state === "failed" || s.state === "cancelled");

export async function loadMonitor(gateway: ReportGateway, config: MonitorConfig, today: string, owner: string, waitMs: number): Promise<MonitorAnswer> {
  const months = monitorMonths(today);
  const settled = await settleAll(gateway, months.map(monitorQuery), owner, waitMs);
  const statuses: MonthStatus[] = months.map((m, i) => ({ month: m.month, start: m.start, end: m.end, status: withoutData(settled[i]!) }));
  if (anyFailed(settled)) return { kind: "failed", months: statuses };
  if (!settled.every((s) => s.state === "done")) return { kind: "pending", months: statuses };

  const data = new Map<string, MonthData>();
  for (const [i, m] of months.entries()) {
    const status = settled[i]!;
    if (status.state !== "done") continue;
    data.set(m.month, { month: m.month, daysInMonth: m.daysInMonth, daysElapsed: m.daysElapsed, mids: midSums(status.result.data) });
  }
  const shown = months.filter((m) => !m.salesOnly);
  const rows = evaluatePrograms(config, data, shown.map((m) => m.month)).sort(worstFirst);
  return {
    kind: "ok",
    today,
    months: months.map((m, i) => ({ ...m, status: statuses[i]!.status })),
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
