/**
 * BIN evidence through the report gateway against the real service (a real socket, a real DuckDB
 * file): the figures equal a direct call for the same days, a bulk lookup costs one report, asking
 * again costs none, and a queued report answers "pending" rather than waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, type ReportRecord } from "@/lib/contract";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { binEvidence, EVIDENCE_OWNER } from "./upstream";

const END = "2025-07-31";
/** The day after END, so the evidence's 90 full days end on END. */
const NOW = new Date(`${addDays(END, 1)}T12:00:00Z`);
const START = addDays(END, -89);

describe("BIN evidence through the gateway", () => {
  let svc: TestService;
  let bins: string[];

  /** Every record of a request straight from the service, all pages. */
  const direct = (body: Record<string, unknown>): Promise<ReportRecord[]> => svc.allRecords("/api/data", body);

  beforeAll(async () => {
    svc = await startTestService({ data: { days: 120, ordersPerDay: 30, seed: 11, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
    // The BINs with the most attempts in the window, so the comparisons have figures to compare.
    const byBin = await direct({ start_date: START, end_date: END, group_by: ["bin"], metrics: ["attempts"] });
    bins = byBin
      .sort((a, b) => Number(b.attempts) - Number(a.attempts))
      .slice(0, 3)
      .map((r) => String(r.bin));
    expect(bins).toHaveLength(3);
  });
  afterAll(async () => svc.stop());

  it("equals a direct call for the same 90 days grouped by gateway_id with the bin filter, and costs one report for several BINs", async () => {
    const g = gatewayFor(svc);
    const [a, b, c] = bins as [string, string, string];
    // An 8-digit BIN is looked up by its first 6 digits.
    const answer = await binEvidence(g, [`${a}12`, b, c, "000000"], { now: NOW, waitMs: 30_000 });
    expect(g.client.reportCalls).toBe(1);
    expect(answer.state).toBe("done");
    if (answer.state !== "done") return;
    expect(answer.range).toMatchObject({ start_date: START, end_date: END, days: 90 });
    expect(answer.bins.map((e) => [e.bin, e.report_bin])).toEqual([
      [`${a}12`, a],
      [b, b],
      [c, c],
      ["000000", "000000"],
    ]);
    for (const e of answer.bins.slice(0, 3)) {
      const want = await direct({ start_date: START, end_date: END, group_by: ["gateway_id"], metrics: ["attempts", "approvals", "cb_count"], filters: { bin: e.report_bin } });
      const got = Object.fromEntries(e.gateways.map((r) => [r.id, [r.attempts, r.approvals, r.cb_count]]));
      expect(got).toEqual(Object.fromEntries(want.map((r) => [String(r.gateway_id), [r.attempts, r.approvals, r.cb_count]])));
      for (const r of e.gateways) {
        expect(r.approval_rate).toBe(r.attempts ? r.approvals / r.attempts : null);
        expect(r.cb_rate).toBe(r.approvals ? r.cb_count / r.approvals : null);
        // Named as the reports name them.
        expect(r.name).toEqual(expect.any(String));
      }
    }
    expect(answer.bins[3]).toMatchObject({ gateways: [], best: null, best_reason: { kind: "no_data" } });

    // Asked again, or for one of them: from cache, no further upstream call.
    const again = await binEvidence(g, [b], { now: NOW });
    expect(again.state === "done" && again.source).not.toBe("upstream");
    expect(g.client.reportCalls).toBe(1);
  });

  it("answers pending while the report waits for the quota; asking again joins the same job", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 1, rateWindowSeconds: 2 });
    // Spend the window's one call.
    const first = g.submit("orders", g.parse("orders", { start_date: END, end_date: END, group_by: ["gateway_id"], metrics: ["attempts"] }), "someone");
    if ("job" in first) await g.wait(first.job.id);
    const pending = await binEvidence(g, bins, { now: NOW, waitMs: 50 });
    expect(pending).toMatchObject({ state: "pending", phase: "queued", min_attempts: 30 });
    const again = await binEvidence(g, bins, { now: NOW, waitMs: 50 });
    expect(again.state).toBe("pending");
    const done = await binEvidence(g, bins, { now: NOW, waitMs: 10_000 });
    expect(done.state).toBe("done");
    // The window's call, then exactly one for the evidence however often it was asked for.
    expect(g.client.reportCalls).toBe(2);
    expect(EVIDENCE_OWNER).toBe("bin-evidence");
  });

  it("costs one report when forty lookups of the same BINs arrive at once, each in its own order", async () => {
    const g = gatewayFor(svc);
    const orders = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? bins : [...bins].reverse()));
    const answers = await Promise.all(orders.map((b) => binEvidence(g, b, { now: NOW, waitMs: 30_000 })));
    expect(answers.map((x) => x.state).filter((st) => st !== "done"), "evidence answers not done").toEqual([]);
    expect(g.client.reportCalls).toBe(1);
    const gateways = (x: (typeof answers)[number]) => (x.state === "done" ? x.bins.map((e) => [e.bin, e.gateways.map((r) => [r.id, r.attempts])]).sort() : null);
    for (const x of answers) expect(gateways(x)).toEqual(gateways(answers[0]!));
  });
});
