/**
 * Background work stays background: 50 alert rules due at once, run by the real scheduler as the
 * server wires it (scheduledItems → runSlot), through the real report gateway at the product's quota
 * (5 calls a window) in front of the real service, while an analyst asks for a report that takes
 * three calls. Every reporting call is recorded as it reaches the service: in no window do the
 * rules' calls exceed the background share of the quota (BACKGROUND_SHARE of 5, rounded up: 2), and
 * the analyst's calls are never queued behind a rule's: each waits at most for the next free slot,
 * which the share keeps within one window.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import { addDays, todayIn } from "@/lib/contract/dates";
import { AlertDefinition } from "@/lib/features/notifications/definition";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { Scheduler } from "@/lib/features/notifications/scheduler";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import { BACKGROUND_SHARE } from "@/lib/core/upstream/quota";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { MAIL_POLICY_DEFAULTS } from "./policy";
import { runSlot, scheduledItems } from "./slots";
import { mailQueue } from "./mail-queue";
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
  store = await openTestPglite(dir, "background share test");
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
}, 300_000); // fifty rules in PGlite and a generated service: minutes on a busy two-core machine

afterAll(async () => {
  await proxy?.close();
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("50 rules due at once and a person's report", () => {
  it("keeps the rules' calls within the background share of every window, and puts the person's calls ahead of every rule's", async () => {
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
    const share = Math.ceil(LIMIT * BACKGROUND_SHARE);
    // The quota's own count of the rules' calls in its current window, looked at every few
    // milliseconds for the whole run: a count the quota holds for a window, so a look cannot miss
    // it, and the quota's clock, not the arrival times at the service, which a busy machine skews.
    let ticked = false;
    let mostInWindow = 0;
    const look = () => (mostInWindow = Math.max(mostInWindow, gateway.queue.status().backgroundInWindow));
    const tick = scheduler.tick().finally(() => (ticked = true));
    const watching = (async () => {
      while (!ticked) {
        look();
        await new Promise((r) => setTimeout(r, 2));
      }
    })();

    // Once the rules hold the quota (their share spent, more of theirs waiting), an analyst asks
    // for 300 days by week: three pieces, three calls.
    while (!(gateway.queue.status().backgroundInWindow >= share && gateway.status().background_queue_length > 0)) {
      if (ticked) throw new Error("the rules finished before any of them waited for the quota");
      look();
      await new Promise((r) => setTimeout(r, 2));
    }
    const out = gateway.submit("orders", gateway.parse("orders", { start_date: addDays(today, -299), end_date: today, group_by: ["sales_type"], metrics: ["attempts"] }), "analyst-1");
    if (!("job" in out)) throw new Error("the analyst's report was cached");
    // Watched until answered: while one of the analyst's calls waits for the quota it is next in
    // line (position 0: the rules' calls are not counted ahead of it) and no rule's call leaves the
    // queue before it, so it waits at most for the next free slot, which the rules' share keeps
    // within one window. Order and counts, not a stopwatch.
    const id = out.job.id;
    let settled = false;
    const answered = gateway.wait(id).finally(() => (settled = true));
    const positions: number[] = [];
    let waits = 0;
    let rulesStartedAhead = 0;
    let before: { queued: boolean; rulesWaiting: number } | null = null;
    while (!settled) {
      const status = gateway.get(id)?.status;
      const now = { queued: status?.state === "queued", rulesWaiting: gateway.status().background_queue_length };
      if (status?.state === "queued") positions.push(status.position);
      if (now.queued && !before?.queued) waits++;
      if (before?.queued && now.queued && now.rulesWaiting < before.rulesWaiting) rulesStartedAhead += before.rulesWaiting - now.rulesWaiting;
      before = now;
      await new Promise((r) => setImmediate(r));
    }
    const answer = await answered;
    expect(answer.upstream_calls, "the analyst's report: calls it took").toBe(3);
    expect(positions.filter((p) => p !== 0), `the analyst's queue positions while waiting (${waits} waits, ${positions.length} looks)`).toEqual([]);
    expect(rulesStartedAhead, "rules' calls that started while the analyst's call waited for the quota").toBe(0);

    const ran = await tick;
    await watching;
    look();
    expect(ran).toHaveLength(RULES);
    expect(ran.filter((r) => r.error !== null)).toEqual([]);

    const calls = proxy.arrivals.filter((a) => a.path === "/api/data");
    const background = calls.filter((a) => a.body?.filters && "gateway_id" in a.body.filters);
    expect(background, "the rules' calls that reached the service").toHaveLength(RULES);
    expect(mostInWindow, `the rules' calls the quota started in one ${WINDOW_MS} ms window (share ${share} of ${LIMIT})`).toBeLessThanOrEqual(share);
    expect(mostInWindow, "the rules' calls in a window at their busiest: the share is used, not just not exceeded").toBe(share);
  });
});
