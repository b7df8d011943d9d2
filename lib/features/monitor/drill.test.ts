/**
 * The Monitor's drill-down against the real service: it opens only a MID the Monitor shows for that
 * programme and month. A MID written any other way than the Monitor writes it ("1e3", "0x10") is
 * refused by the input's check, and a well-written MID the Monitor does not show (900001) is refused
 * with a 400 that says so; neither queues a job or spends an upstream call. A MID it shows opens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { DEFAULT_MONITOR_CONFIG } from "./definitions";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { DrillInput, loadDrill } from "./drill";
import { loadMonitor, type MonitorAnswer } from "./load";

const today = todayIn("UTC");
let svc: TestService;
let gateway: ReportGateway;
let monitor: Extract<MonitorAnswer, { kind: "ok" }>;

beforeAll(async () => {
  svc = await startTestService({ data: { days: 100, ordersPerDay: 40, seed: 7, endDate: today }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
  const answer = await loadMonitor(gateway, DEFAULT_MONITOR_CONFIG, today, "viewer-1", 60_000);
  if (answer.kind !== "ok") throw new Error(`the Monitor did not load: ${answer.kind}`);
  monitor = answer;
});

afterAll(async () => {
  await svc?.stop();
});

/** The service's reporting calls so far (its request log), and the gateway's jobs under way. */
function spent() {
  const calls = svc.logLines.map((l) => JSON.parse(l) as { msg: string; path?: string }).filter((l) => l.msg === "request" && l.path === "/api/data").length;
  return { calls, upstream: gateway.status().upstream_report_calls, jobs: gateway.status().jobs_running };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("the drill-down was not refused");
}

describe("the Monitor drill-down", () => {
  it("refuses MIDs not written as the Monitor writes them, before anything runs", () => {
    const row = monitor.rows[0]!;
    for (const gatewayParam of ["1e3", "0x10", " 12", "-1", "1.5", "", "012"]) {
      const raw = { program: row.programId, gateway: gatewayParam, brand: row.cardBrand, month: row.month };
      let error: unknown = null;
      try {
        ApiError.parse(DrillInput, raw);
      } catch (e) {
        error = e;
      }
      expect(error, gatewayParam).toBeInstanceOf(ApiError);
      expect((error as ApiError).status, gatewayParam).toBe(400);
      expect((error as ApiError).details?.map((d) => d.path), gatewayParam).toContain("gateway");
    }
  });

  it("refuses a MID the Monitor does not show with a 400 naming it, and queues no upstream job", async () => {
    const row = monitor.rows[0]!;
    const shownIds = new Set(monitor.rows.map((r) => r.gatewayId));
    expect(shownIds.has(900001)).toBe(false);
    const before = spent();
    for (const gatewayParam of ["900001", String(Math.max(...shownIds) + 1)]) {
      const input = ApiError.parse(DrillInput, { program: row.programId, gateway: gatewayParam, brand: row.cardBrand, month: row.month });
      const e = await refusal(loadDrill(gateway, DEFAULT_MONITOR_CONFIG, today, "viewer-1", 10_000, input));
      expect(e.status).toBe(400);
      expect(e.message).toContain(`MID ${gatewayParam}`);
      expect(e.message).toContain("not among the MIDs the Monitor shows");
    }
    // A shown MID under a programme of another card brand is not one of that programme's rows either.
    const other = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.cardBrand !== row.cardBrand)!;
    const wrongBrand = await refusal(loadDrill(gateway, DEFAULT_MONITOR_CONFIG, today, "viewer-1", 10_000, { program: other.id, gateway: row.gatewayId, brand: row.cardBrand as "VISA", month: row.month }));
    expect(wrongBrand.status).toBe(400);
    expect(spent()).toEqual(before);
  });

  it("opens a MID the Monitor shows", async () => {
    const row = monitor.rows.find((r) => r.month === monitor.months[1]!.month)!;
    const input = ApiError.parse(DrillInput, { program: row.programId, gateway: String(row.gatewayId), brand: row.cardBrand, month: row.month });
    const drill = await loadDrill(gateway, DEFAULT_MONITOR_CONFIG, today, "viewer-1", 60_000, input);
    expect(drill.kind).toBe("ok");
    if (drill.kind === "ok") expect(drill.trend.at(-1)!.numerator).toBe(row.actual.numerator);
  });
});
