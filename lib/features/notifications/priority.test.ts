/**
 * Alert evaluations queue behind people: a rule's report goes to the quota queue at the background
 * priority, so an analyst's report waiting for the same quota window reaches the service first.
 * Checked against the real service, through a recording pass-through in front of it that notes each
 * call's body as it arrives (the service's own log names the path, not the body).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import { addDays, todayIn } from "@/lib/contract/dates";
import { AlertDefinition } from "@/lib/features/notifications/definition";
import { evaluateRule } from "@/lib/features/notifications/alert-evaluation";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { mailQueue } from "./mail-queue";
import { recordingProxy } from "./testing/recording-proxy";

let dir: string;
let store: Store;
let svc: TestService;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let ownerId: string;
const today = todayIn("UTC");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "notify-priority-"));
  store = await openTestPglite(dir, "priority test");
  ownerId = (await usersRepo(store).create({ email: "owner@test.local", role: "analyst", passwordHash: await hashPassword("irrelevant-password") })).id;
  svc = await startTestService({ data: { days: 30, ordersPerDay: 20, seed: 5, endDate: today }, env: { REPORT_RATE_LIMIT: "100000" } });
  proxy = await recordingProxy(svc.url);
});

afterAll(async () => {
  await proxy?.close();
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("alert evaluations and people's reports", () => {
  it("A rule evaluation while an analyst's report is queued runs after it (quota priority)", async () => {
    const g = gatewayFor(svc, { baseUrl: proxy.url, tokenUrl: `${proxy.url}/api/auth/token`, reportRateLimit: 2, rateWindowSeconds: 2 });
    const rule = await alertsRepo(store).create({
      ownerId,
      name: "Approval rate per gateway",
      definition: AlertDefinition.parse({
        target: { kind: "measure", measure: "approval_rate" },
        condition: { kind: "below", value: 0.5 },
        group_by: "gateway_alias",
        filters: {},
        window: "last7",
      }),
      schedule: { every: "hour" },
      recipients: { users: [], emails: [] },
      cooldownMinutes: 60,
      paused: false,
    });
    const week = { start_date: addDays(today, -6), end_date: today };
    // Nothing the rule asks for is cached, nor can be derived from what the others ask for.
    expect(g.lookup("orders", g.parse("orders", { ...week, group_by: ["gateway_alias"], metrics: ["attempts", "approvals"] }))).toBeNull();

    // Someone fills the quota window…
    const fill = [["date"], ["card_brand"]].map((group_by) => g.submit("orders", g.parse("orders", { ...week, group_by, metrics: ["revenue"] }), "other"));
    // …an analyst's report waits for it…
    const analyst = g.submit("orders", g.parse("orders", { ...week, group_by: ["sales_type"], metrics: ["attempts"] }), "analyst-1");
    expect("job" in analyst).toBe(true);
    const analystId = "job" in analyst ? analyst.job.id : "";
    expect(g.get(analystId)!.status.state).toBe("queued");
    // …and then the rule is evaluated.
    const slot = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const evaluation = evaluateRule({ db: store, gateway: g, timeZone: "UTC", monitor: DEFAULT_MONITOR_CONFIG, mail: mailQueue(false), waitMs: 30_000, baseUrl: "http://localhost:3000" }, rule, slot, false);

    const [record] = await Promise.all([evaluation, g.wait(analystId), ...fill.map((o) => ("job" in o ? g.wait(o.job.id) : null))]);
    expect(record.reading?.groups.length).toBeGreaterThan(0);
    expect(record.error).toBeUndefined();

    const calls = proxy.arrivals.filter((a) => a.path === "/api/data").map((a) => (a.body?.group_by ?? []).join(","));
    expect(calls.slice(0, 2).sort()).toEqual(["card_brand", "date"]);
    expect(calls.slice(2)).toEqual(["sales_type", "gateway_alias"]);
    // The service saw the same four reporting calls.
    const serviceCalls = svc.logLines.map((l) => JSON.parse(l) as { msg: string; path: string }).filter((l) => l.msg === "request" && l.path === "/api/data");
    expect(serviceCalls).toHaveLength(4);
    // The rule's call waited for the analyst's to leave the window (it keeps a slot free for people).
    const at = proxy.arrivals.filter((a) => a.path === "/api/data").map((a) => a.at);
    expect(at[3]! - at[2]!).toBeGreaterThanOrEqual(1_900);
  });

  it("an analyst who asks after a rule's evaluation has queued still goes first", async () => {
    const g = gatewayFor(svc, { baseUrl: proxy.url, tokenUrl: `${proxy.url}/api/auth/token`, reportRateLimit: 2, rateWindowSeconds: 2 });
    const rule = await alertsRepo(store).create({
      ownerId,
      name: "Revenue per card brand",
      definition: AlertDefinition.parse({
        target: { kind: "measure", measure: "revenue" },
        condition: { kind: "above", value: 0 },
        group_by: "card_brand",
        filters: {},
        window: "yesterday",
      }),
      schedule: { every: "hour" },
      recipients: { users: [], emails: [] },
      cooldownMinutes: 60,
      paused: false,
    });
    const from = proxy.arrivals.length;
    const week = { start_date: addDays(today, -13), end_date: addDays(today, -7) };
    const fill = [["date"], ["sales_type"]].map((group_by) => g.submit("orders", g.parse("orders", { ...week, group_by, metrics: ["attempts"] }), "other"));
    const slot = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const evaluation = evaluateRule({ db: store, gateway: g, timeZone: "UTC", monitor: DEFAULT_MONITOR_CONFIG, mail: mailQueue(false), waitMs: 30_000, baseUrl: "http://localhost:3000" }, rule, slot, false);
    // The rule's report is queued before the analyst asks.
    await new Promise((r) => setTimeout(r, 200));
    expect(g.status()).toMatchObject({ background_queue_length: 1 });
    const analyst = g.submit("orders", g.parse("orders", { ...week, group_by: ["gateway_alias"], metrics: ["revenue"] }), "analyst-1");
    const analystId = "job" in analyst ? analyst.job.id : "";
    const [record] = await Promise.all([evaluation, g.wait(analystId), ...fill.map((o) => ("job" in o ? g.wait(o.job.id) : null))]);
    expect(record.error).toBeUndefined();
    const calls = proxy.arrivals.slice(from).filter((a) => a.path === "/api/data").map((a) => (a.body?.group_by ?? []).join(","));
    expect(calls.slice(0, 2).sort()).toEqual(["date", "sales_type"]);
    expect(calls.slice(2)).toEqual(["gateway_alias", "card_brand"]);
  });
});
