/**
 * Background work stays background: 50 alert rules due at once, run by the real scheduler as the
 * server wires it (scheduledItems → runSlot), through the real report gateway at the product's quota
 * (5 calls a window) in front of the real service, while an analyst asks for a report that takes
 * three calls. Every reporting call is recorded as it reaches the service: in no window do the
 * rules' calls exceed the background share of the quota (BACKGROUND_SHARE of 5, rounded up: 2), and
 * the analyst's report is answered within one window of asking.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/auth/password";
import { addDays, todayIn } from "@/lib/contract/dates";
import { AlertDefinition } from "@/lib/notifications/definition";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/monitor/definitions";
import { Scheduler } from "@/lib/notifications/scheduler";
import { alertsRepo } from "@/lib/store/alerts";
import { openStore } from "@/lib/store/open";
import type { Store } from "@/lib/store/sql";
import { usersRepo } from "@/lib/auth/users";
import { BACKGROUND_SHARE } from "@/lib/upstream/quota";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { MAIL_POLICY_DEFAULTS } from "./policy";
import { mailQueue, runSlot, scheduledItems } from "./runtime";
import { recordingProxy } from "./testing/recording-proxy";

const RULES = 50;
const LIMIT = 5;
const WINDOW_MS = 1_000;
const today = todayIn("UTC");

let dir: string;
let store: Store;
let svc: TestService;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "background-share-"));
  store = await openStore({ kind: "pglite", dir }, { owner: "background share test" });
  const owner = await usersRepo(store).create({ email: "owner@corp.example", role: "analyst", passwordHash: await hashPassword("irrelevant-password") });
  svc = await startTestService({ data: { days: 20, ordersPerDay: 20, seed: 37, endDate: today }, env: { REPORT_RATE_LIMIT: "100000" } });
  proxy = await recordingProxy(svc.url);
  // Fifty rules, each asking its own report (one gateway each), all due now.
  for (let i = 1; i <= RULES; i++) {
    const rule = await alertsRepo(store).create({
      ownerId: owner.id,
      name: `Gateway ${i}`,
      definition: AlertDefinition.parse({ target: { kind: "measure", measure: "attempts" }, condition: { kind: "above", value: 1e9 }, group_by: null, filters: { gateway_id: [i] }, window: "last7" }),
      schedule: { every: "hour" },
      recipients: { users: [], emails: [] },
      cooldownMinutes: 60,
      paused: false,
    });
    await store.query("UPDATE alert_rules SET created_at = now() - interval '2 hours', updated_at = now() - interval '2 hours' WHERE id = $1", [rule.id]);
  }
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("50 rules due at once and a person's report", () => {
  it("keeps the rules' calls within the background share of every window, and answers the person within one window", async () => {
    const gateway = gatewayFor(svc, { baseUrl: proxy.url, tokenUrl: `${proxy.url}/api/auth/token`, reportRateLimit: LIMIT, rateWindowSeconds: WINDOW_MS / 1000 });
    const deps = {
      db: store,
      gateway,
      env: { REPORT_TIMEZONE: "UTC", NEXTAUTH_SECRET: "background-share-test-secret-0123456789abcdef", NEXTAUTH_URL: "http://localhost:3000" },
      mail: mailQueue(false),
      waitMs: 120_000,
      policy: MAIL_POLICY_DEFAULTS,
      monitor: DEFAULT_MONITOR_CONFIG,
    };
    const scheduler = new Scheduler({ db: store, workerId: "share-test", timeZone: "UTC", items: () => scheduledItems(store), run: (item, slot, ctx) => runSlot(deps, item, ctx.late, slot), log: () => {} });
    const tick = scheduler.tick();

    // Once the rules hold the quota, an analyst asks for 300 days by week: three pieces, three calls.
    await new Promise((r) => setTimeout(r, 2_500));
    const asked = Date.now();
    const out = gateway.submit("orders", gateway.parse("orders", { start_date: addDays(today, -299), end_date: today, group_by: ["sales_type"], metrics: ["attempts"] }), "analyst-1");
    if (!("job" in out)) throw new Error("the analyst's report was cached");
    const answer = await gateway.wait(out.job.id);
    const answeredIn = Date.now() - asked;
    expect(answer.upstream_calls).toBe(3);

    const ran = await tick;
    expect(ran).toHaveLength(RULES);
    expect(ran.filter((r) => r.error !== null)).toEqual([]);

    const calls = proxy.arrivals.filter((a) => a.path === "/api/data");
    const background = calls.filter((a) => a.body?.filters && "gateway_id" in a.body.filters).map((a) => a.at);
    expect(background).toHaveLength(RULES);
    const share = Math.ceil(LIMIT * BACKGROUND_SHARE);
    let most = 0;
    for (const t of background) most = Math.max(most, background.filter((u) => u > t - WINDOW_MS && u <= t).length);
    expect(most, `background calls in one ${WINDOW_MS} ms window`).toBeLessThanOrEqual(share);
    // Within one window (and the queue's small margin) of asking, however many rules are waiting.
    expect(answeredIn).toBeLessThanOrEqual(WINDOW_MS + 500);
  }, 120_000);
});
