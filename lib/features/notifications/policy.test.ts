/**
 * The mail policy's caps hold under concurrency, on both stores the dashboard runs on (PGlite, and a
 * real PostgreSQL server when one is installed, with its connection pool): 25 rules created at once
 * by one user leave exactly the cap, and 8 "Evaluate now" at once let exactly the allowed number
 * through, every other refused with its limit named.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { ApiError } from "@/lib/contract/errors";
import { createAlertRule } from "@/lib/features/notifications/alert-rules";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { openStore } from "@/lib/core/store/open";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { usersRepo } from "@/lib/core/auth/users";
import { MAIL_POLICY_DEFAULTS, takeRunNow } from "./policy";

const external = process.env.TEST_DATABASE_URL;
const withPostgres = external !== undefined || postgresBinDir() !== null;

let pg: TestPostgres | null = null;
let dir: string;
const stores: { name: string; store: Store }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mail-policy-caps-"));
  stores.push({ name: "PGlite", store: await openTestPglite(dir, "mail policy caps test") });
  if (withPostgres) {
    const url = external ?? (pg = await startTestPostgres()).url;
    stores.push({ name: "PostgreSQL", store: await openStore({ kind: "postgres", url }, { owner: "mail policy caps test" }) });
  } else console.warn("lib/features/notifications/policy.test.ts: no PostgreSQL server installed; PGlite only");
});

afterAll(async () => {
  for (const { store } of stores) await store.close();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 0;
  } catch (e) {
    if (e instanceof ApiError) return e.status;
    throw e;
  }
}

describe("mail policy caps under concurrency", () => {
  it.each([["PGlite"], ["PostgreSQL"]])("%s: 25 rules at once leave exactly the cap; 8 Evaluate now at once, exactly the allowed", async (name) => {
    const entry = stores.find((s) => s.name === name);
    if (!entry) return; // no PostgreSQL on this machine (warned above)
    const { store } = entry;
    const u = await usersRepo(store).create({ email: `caps-${Date.now()}@corp.example`, role: "analyst", passwordHash: "scrypt$irrelevant" });
    const user: SessionUser = { id: u.id, email: u.email, role: "analyst" };
    const input = (i: number) => ({
      name: `Rule ${i}`,
      definition: { target: { kind: "measure" as const, measure: "attempts" }, condition: { kind: "above" as const, value: 0 }, group_by: null, filters: {}, window: "last7" as const },
      schedule: { every: "day" as const, hour: 7 },
      recipients: { users: [], emails: [] },
      cooldown_minutes: 60,
      paused: false,
    });
    const made = await Promise.all(Array.from({ length: 25 }, (_, i) => statusOf(createAlertRule(store, user, input(i), DEFAULT_MONITOR_CONFIG, MAIL_POLICY_DEFAULTS))));
    expect(made.filter((s) => s === 0)).toHaveLength(MAIL_POLICY_DEFAULTS.maxRulesPerUser);
    expect(made.filter((s) => s !== 0)).toEqual(Array(25 - MAIL_POLICY_DEFAULTS.maxRulesPerUser).fill(403));
    expect(await alertsRepo(store).list(user.id)).toHaveLength(MAIL_POLICY_DEFAULTS.maxRulesPerUser);

    const runs = await Promise.all(Array.from({ length: 8 }, () => statusOf(takeRunNow(store, user.id, MAIL_POLICY_DEFAULTS))));
    expect(runs.filter((s) => s === 0)).toHaveLength(MAIL_POLICY_DEFAULTS.runNowPerWindow);
    expect(runs.filter((s) => s !== 0)).toEqual(Array(8 - MAIL_POLICY_DEFAULTS.runNowPerWindow).fill(429));
  });
});
