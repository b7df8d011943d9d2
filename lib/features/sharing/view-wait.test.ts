/**
 * How long a shared report says its answer will take while it waits for the quota: until every
 * answer it waits for should be in (the report's, its comparison's and the comparison's coverage's),
 * as the jobs themselves estimate it, over a real PGlite store, the real service and the gateway.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, todayIn } from "@/lib/contract/dates";
import { usersRepo } from "@/lib/core/auth/users";
import type { Store } from "@/lib/core/store/sql";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { SHARE_OWNER } from "@/lib/core/upstream/gateway";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { coverageRequest } from "@/lib/report/periods/coverage";
import { reportQuery } from "./service";
import { renderSavedReport, secondsUntilDone } from "./view";

describe("secondsUntilDone", () => {
  const NOW = Date.parse("2026-11-02T08:00:00Z");
  const at = (s: number) => new Date(NOW + s * 1000).toISOString();

  it("is the latest of the waiting answers' estimates, a second over, and never under 2 s", () => {
    expect(secondsUntilDone([{ state: "queued", estimated_done: at(50) }, { state: "queued", estimated_done: at(110) }, undefined], 800, NOW)).toBe(111);
    expect(secondsUntilDone([{ state: "fetching", estimated_done: at(30) }], 800, NOW)).toBe(31);
    // A job on its last call says no estimate: a call's time.
    expect(secondsUntilDone([{ state: "fetching" }], 4_000, NOW)).toBe(5);
    expect(secondsUntilDone([{ state: "queued", estimated_done: at(-3) }], 100, NOW)).toBe(2);
  });
});

describe("a shared report that waits for the quota", () => {
  let dir: string;
  let store: Store;
  let svc: TestService;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "share-wait-"));
    store = await openTestPglite(dir, "share wait test");
    svc = await startTestService({ data: { days: 40, ordersPerDay: 10, seed: 8, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  });
  afterAll(async () => {
    await svc?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("says how long until its comparison's answers are in too, not only its own", async () => {
    // Two calls a minute, both spent: the report's call and the comparison's start in the next
    // window, the coverage's in the one after it.
    const gateway = gatewayFor(svc, { reportRateLimit: 2, rateWindowSeconds: 60 });
    const today = todayIn("UTC");
    const spendQuery = (i: number) => gateway.parse("orders", { start_date: addDays(today, -i), end_date: today, group_by: ["date"], metrics: ["attempts"] });
    const spend = [0, 1].map((i) => gateway.submit("orders", spendQuery(i), "someone else"));
    const owner = await usersRepo(store).create({ email: "share-wait@test.local", role: "analyst", passwordHash: "x" });
    const report = await savedReportsRepo(store).create({
      ownerId: owner.id,
      name: "Compared",
      page: "explore",
      params: "op=orders&range=last7&cmp=prev&by=card_type&m=revenue",
      sharedWithTeam: false,
    });
    const view = await renderSavedReport({ db: store, gateway, owner: SHARE_OWNER, waitMs: 0, timeZone: "UTC" }, report, { allowedPresets: [], preset: null, snapshot: null });
    expect(view.kind).toBe("pending");
    if (view.kind !== "pending") return;
    // Its three questions are all waiting, the last a window after the first two.
    const { op, query, comparison } = reportQuery(report, "UTC");
    const questions = [query, comparison!, coverageRequest(op, comparison!)!];
    const waiting = questions.map((q) => gateway.inFlight(op, q)?.status);
    const done = waiting.map((s) => (s?.state === "queued" ? Date.parse(s.estimated_done) : Number.NaN));
    expect(done.every(Number.isFinite), JSON.stringify(waiting)).toBe(true);
    const [first, last] = [Math.min(...done), Math.max(...done)];
    expect(last - first, "the third call waits a window more").toBeGreaterThan(50_000);
    // Told until the last, not the first.
    expect(view.retryAfterSeconds * 1000).toBeGreaterThanOrEqual(last - Date.now());
    // Nobody waits for them any more.
    for (const [o, q] of [...questions.map((q) => [SHARE_OWNER, q] as const), ...spend.map((_, i) => ["someone else", spendQuery(i)] as const)]) {
      const out = gateway.submit(op, q, o);
      if ("job" in out) gateway.cancel(out.job.id);
    }
  });
});
