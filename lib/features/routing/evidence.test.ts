/**
 * Routing proposals from evidence against the real service, on generated data with the routing
 * evidence case and the demo routing configuration: the report goes through the dashboard's report
 * gateway, the current MIDs come from the service's preview. The BIN where one MID is truly better
 * yields exactly one proposal, whose counts and rates are those this test sums itself with SQL on
 * the service's DuckDB file; the BIN where MIDs differ only by noise yields none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { UpstreamClient } from "@/lib/core/upstream/client";
import { applyRoutingConfig, getRoutingConfig, restoreRoutingConfig } from "./upstream";
import { createClient } from "@/service/clients";
import { importRoutingEvidenceCase, ROUTING_EVIDENCE_BANK, type RoutingEvidenceCase } from "@/service/data/routing-evidence-case";
import { seedDemoRouting } from "@/service/routing/demo";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { loadRoutingProposals, type RoutingProposalsAnswer } from "./evidence";
import { PROPOSAL_DEFAULTS, twoProportionZTest } from "./proposals";

const END = "2025-07-31";
/** Noon the day after the data's last day: the window is the 90 days ending on END. */
const NOW = new Date(`${addDays(END, 1)}T12:00:00Z`);
const FROM = addDays(END, -89);

let svc: TestService;
let gateway: ReportGateway;
let evidence: RoutingEvidenceCase;
let answer: RoutingProposalsAnswer;
/** Reporting calls the proposals' report took on a fresh gateway (its pages). */
let pages: number;

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 120, ordersPerDay: 30, seed: 11, endDate: END },
    env: { REPORT_RATE_LIMIT: "1000000", ROUTING_RATE_LIMIT: "1000000" },
    setup: async (db) => {
      evidence = await importRoutingEvidenceCase(db);
      await seedDemoRouting(db);
    },
  });
  gateway = gatewayFor(svc);
  const got = await loadRoutingProposals(gateway, { now: NOW, waitMs: 120_000, clients: { read: gateway.client, write: null } });
  if (got.state !== "done") throw new Error(`the proposals' report is still ${got.phase}`);
  answer = got;
  pages = gateway.client.reportCalls;
});
afterAll(() => svc?.stop());

/** Attempts, approvals and chargebacks of a BIN per gateway in the window, straight from the tables. */
async function direct(bin: string) {
  const rows = await svc.db.all<{ gateway_id: number; attempts: string; approvals: string; cb_count: string }>(
    `SELECT a.gateway_id, count(*)::VARCHAR AS attempts, count(*) FILTER (WHERE a.approved)::VARCHAR AS approvals,
            coalesce(sum(cb.n), 0)::VARCHAR AS cb_count
     FROM attempts a LEFT JOIN (SELECT attempt_id, count(*) AS n FROM chargebacks GROUP BY attempt_id) cb USING (attempt_id)
     WHERE a.bin = ? AND a.attempt_date BETWEEN ?::DATE AND ?::DATE
     GROUP BY a.gateway_id ORDER BY a.gateway_id`,
    [bin, FROM, END],
  );
  return new Map(rows.map((r) => [String(r.gateway_id), { attempts: Number(r.attempts), approvals: Number(r.approvals), cb_count: Number(r.cb_count) }]));
}

describe("routing proposals from evidence", () => {
  it("answers the 90-day window with the default thresholds, the live version and what it compared", () => {
    expect(answer.window).toEqual({ from: FROM, to: END });
    expect(answer.thresholds).toEqual(PROPOSAL_DEFAULTS);
    expect(answer.live_version).toBe(1);
    // At least the case's two BINs had a current MID and another active MID with enough attempts.
    expect(answer.considered).toBeGreaterThanOrEqual(2);
  });

  it("proposes the truly better MID for the better BIN, with the counts and rates summed directly", async () => {
    const mine = answer.proposals.filter((p) => p.key === evidence.better_bin);
    expect(mine).toHaveLength(1);
    const p = mine[0]!;
    const counts = await direct(evidence.better_bin);
    expect([...counts.keys()]).toEqual([String(evidence.current_gateway_id), String(evidence.better_gateway_id)].sort((a, b) => Number(a) - Number(b)));
    const cur = counts.get(String(evidence.current_gateway_id))!;
    const alt = counts.get(String(evidence.better_gateway_id))!;
    // The case's own record of what it imported agrees with the tables.
    const side = (g: number) => evidence.sides.find((s) => s.bin === evidence.better_bin && s.gateway_id === g)!;
    expect(cur).toEqual({ attempts: side(evidence.current_gateway_id).attempts, approvals: side(evidence.current_gateway_id).approvals, cb_count: side(evidence.current_gateway_id).chargebacks });
    expect(alt.attempts).toBeGreaterThanOrEqual(1_500);
    expect(cur.attempts).toBeGreaterThanOrEqual(1_500);

    expect(p.kind).toBe("BIN");
    expect(p.current).toEqual({ gateway_id: String(evidence.current_gateway_id), ...cur, approval_rate: cur.approvals / cur.attempts, cb_rate: cur.cb_count / cur.approvals });
    expect(p.proposed).toEqual({ gateway_id: String(evidence.better_gateway_id), ...alt, approval_rate: alt.approvals / alt.attempts, cb_rate: alt.cb_count / alt.approvals });
    const diffPp = (alt.approvals / alt.attempts - cur.approvals / cur.attempts) * 100;
    expect(p.difference_pp).toBeCloseTo(diffPp, 10);
    expect(diffPp).toBeGreaterThan(2);
    const { z, p: pValue } = twoProportionZTest(alt.approvals, alt.attempts, cur.approvals, cur.attempts);
    expect(p.z).toBeCloseTo(z, 10);
    expect(p.p_value).toBeCloseTo(pValue, 15);
    expect(p.p_value).toBeLessThan(p.threshold);
    expect(p.chargeback_worse).toBe(alt.cb_count / alt.approvals > cur.cb_count / cur.approvals);
    expect(p.rule).toEqual({ type: "BIN", bin_prefix: evidence.better_bin, rule_name: `BIN ${evidence.better_bin} to MID #${evidence.better_gateway_id}` });
    const pct = (n: number, d: number) => `${((n / d) * 100).toFixed(1)} %`;
    expect(p.summary).toBe(
      `route BIN ${evidence.better_bin} to MID #${evidence.better_gateway_id}: ${pct(alt.approvals, alt.attempts)} vs ${pct(cur.approvals, cur.attempts)}, ` +
        `n = ${alt.attempts.toLocaleString("en-US")} / ${cur.attempts.toLocaleString("en-US")}`,
    );
  });

  it("proposes nothing for the BIN whose MIDs differ only by noise, though both have plenty of attempts", async () => {
    expect(answer.proposals.filter((p) => p.key === evidence.noise_bin)).toEqual([]);
    const counts = await direct(evidence.noise_bin);
    expect([...counts.values()].map((c) => c.attempts).filter((n) => n < 1_500), "attempt counts under 1,500").toEqual([]);
    const rates = [...counts.values()].map((c) => c.approvals / c.attempts);
    expect(rates).toHaveLength(2);
    // Noise: the rates are within the margin of each other.
    expect(Math.abs(rates[0]! - rates[1]!) * 100).toBeLessThan(PROPOSAL_DEFAULTS.marginPp);
  });

  it("answers pending with the queue position while its report waits for the quota; asking again joins the same job", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 1, rateWindowSeconds: 2 });
    const clients = { read: g.client, write: null };
    // Spend the window's one call.
    const first = g.submit("orders", g.parse("orders", { start_date: END, end_date: END, group_by: ["gateway_id"], metrics: ["attempts"] }), "someone");
    if ("job" in first) await g.wait(first.job.id);
    const pending = await loadRoutingProposals(g, { now: NOW, waitMs: 50, clients });
    expect(pending).toMatchObject({ state: "pending", phase: "queued", window: { from: FROM, to: END } });
    expect(pending.state === "pending" && pending.position).toBeGreaterThanOrEqual(0);
    expect((await loadRoutingProposals(g, { now: NOW, waitMs: 50, clients })).state).toBe("pending");
    const done = await loadRoutingProposals(g, { now: NOW, waitMs: 20_000, clients });
    expect(done).toEqual({ ...answer, fetched_at: expect.any(String) });
    // The window's call, then the proposals' report's pages once, however often it was asked for.
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(g.client.reportCalls).toBe(1 + pages);
  });

  it("compares a bank on its BINs no BIN rule decides, with the MID its BANK rule gives", async () => {
    // The better BIN now follows a BANK rule for the case's bank (to the same one-MID group); the
    // noise BIN keeps its BIN rule, so the bank is compared on the better BIN's rows alone.
    const admin = await createClient(svc.db, "routing admin", ["routing-admin"]);
    await svc.service.clients.refresh();
    const write = new UpstreamClient({ baseUrl: svc.url, clientId: admin.client_id, clientSecret: admin.client_secret, tokenUrl: `${svc.url}/api/auth/token` });
    const clients = { read: gateway.client, write };
    const live = await getRoutingConfig(clients);
    const rule = live.config.rules.find((r) => r.type === "BIN" && r.bin_prefix === evidence.better_bin)!;
    const config = {
      groups: live.config.groups,
      rules: [...live.config.rules.filter((r) => r !== rule), { type: "BANK" as const, rule_name: "Evidence bank", bank: ROUTING_EVIDENCE_BANK, group_id: rule.group_id }],
    };
    await applyRoutingConfig({ config, reason: "bank rule for the case", author: "test", expected_version: live.version }, clients);

    const got = await loadRoutingProposals(gateway, { now: NOW, waitMs: 0, clients });
    if (got.state !== "done") throw new Error("the reports were cached: the answer cannot wait");
    expect(got.live_version).toBe(live.version + 1);
    const bank = got.proposals.filter((p) => p.kind === "BANK" && p.key === ROUTING_EVIDENCE_BANK);
    expect(bank).toHaveLength(1);
    const counts = await direct(evidence.better_bin);
    const cur = counts.get(String(evidence.current_gateway_id))!;
    const alt = counts.get(String(evidence.better_gateway_id))!;
    expect(bank[0]!.current).toMatchObject({ gateway_id: String(evidence.current_gateway_id), ...cur });
    expect(bank[0]!.proposed).toMatchObject({ gateway_id: String(evidence.better_gateway_id), ...alt });
    expect(bank[0]!.rule).toEqual({ type: "BANK", bank: ROUTING_EVIDENCE_BANK, rule_name: `BANK ${ROUTING_EVIDENCE_BANK} to MID #${evidence.better_gateway_id}` });
    // The BIN itself, now decided by the bank's rule, still has its own proposal; the noise BIN none.
    expect(got.proposals.filter((p) => p.key === evidence.better_bin).map((p) => p.current.gateway_id)).toEqual([String(evidence.current_gateway_id)]);
    expect(got.proposals.filter((p) => p.key === evidence.noise_bin)).toEqual([]);
    expect(got.considered).toBe(answer.considered + 1);

    await restoreRoutingConfig({ reason: "back", author: "test" }, clients);
  });

  it("a second ask is answered from the cache: the same proposals, no further report call", async () => {
    const calls = gateway.client.reportCalls;
    const again = await loadRoutingProposals(gateway, { now: NOW, waitMs: 0, clients: { read: gateway.client, write: null } });
    // The configuration restored above (version 1's again, as version 3) gives the same proposals.
    expect(again).toEqual({ ...answer, live_version: 3 });
    expect(gateway.client.reportCalls).toBe(calls);
  });

  it("names the proposed MID as every page does once an answer has carried its alias, and as MID #n before", async () => {
    // A fresh process: the proposals above named MIDs by number alone, as nothing had named them.
    const g = gatewayFor(svc);
    const named = g.submit("orders", g.parse("orders", { start_date: FROM, end_date: END, group_by: ["gateway_id", "gateway_alias"], metrics: ["attempts"] }), "someone");
    if ("job" in named) await g.wait(named.job.id);
    const got = await loadRoutingProposals(g, { now: NOW, waitMs: 120_000, clients: { read: g.client, write: null } });
    if (got.state !== "done") throw new Error(`the proposals' report is still ${got.phase}`);
    const p = got.proposals.find((x) => x.kind === "BIN" && x.key === evidence.better_bin)!;
    const [row] = await svc.db.all<{ gateway_alias: string }>("SELECT gateway_alias FROM gateways WHERE gateway_id = $1", [evidence.better_gateway_id]);
    const name = `${row!.gateway_alias} (#${evidence.better_gateway_id})`;
    expect(p.rule).toMatchObject({ rule_name: `BIN ${evidence.better_bin} to ${name}` });
    expect(p.summary.startsWith(`route BIN ${evidence.better_bin} to ${name}: `), p.summary).toBe(true);
  });
});
