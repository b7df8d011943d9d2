// The background work as a process of its own on a real PostgreSQL database: a web server started
// with SEPARATE_WORKER=true (lib/startup/index.ts, as `next start` runs it) runs no scheduler and no mail
// worker, so a due alert slot and a queued message stay untouched while it runs; `npm run worker`
// (scripts/worker.ts) then runs the slot against the real service and delivers both messages to a
// real SMTP server in this test, and stops cleanly on SIGTERM. The database is a throwaway cluster
// (lib/core/store/testing/postgres.ts) or the scratch database TEST_DATABASE_URL names; the file is skipped
// only on a machine without PostgreSQL.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import { todayIn } from "@/lib/contract/dates";
import { AlertDefinition } from "@/lib/features/notifications/definition";
import { outboxRepo } from "@/lib/core/mail/outbox";
import { startTestSmtp, type TestSmtp } from "@/lib/features/notifications/testing/smtp";
import { claimsRepo } from "@/lib/features/notifications/claims";
import { latestSlot } from "@/lib/features/notifications/spec";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import type { AlertRule } from "@/lib/features/notifications/model";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { usersRepo } from "@/lib/core/auth/users";
import { startTestService, type TestService } from "@/service/testing/harness";

const external = process.env.TEST_DATABASE_URL;
const available = external !== undefined || postgresBinDir() !== null;
if (!available) console.warn("lib/startup/background.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

const SPEC = { every: "hour" } as const;
const TICK_SECONDS = 1;

let pg: TestPostgres | null = null;
let store: Store | null = null;
let url: string;
let svc: TestService | null = null;
let smtp: TestSmtp | null = null;
let ownerId: string;
let rule: AlertRule;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!available) return;
  if (external) url = external;
  else {
    pg = await startTestPostgres();
    url = pg.url;
  }
  // The schema exists before the processes start (as after a deploy).
  store = await openStore({ kind: "postgres", url }, { owner: "worker test" });
  const email = `owner-${Date.now()}@test.local`;
  ownerId = (await usersRepo(store).create({ email, role: "analyst", passwordHash: await hashPassword("irrelevant-password") })).id;
  svc = await startTestService({ data: { days: 14, ordersPerDay: 20, seed: 5, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  smtp = await startTestSmtp();
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  if (external && store && rule) {
    await store.query("DELETE FROM schedule_claims WHERE item_id = $1", [rule.id]);
    await store.query("DELETE FROM mail_outbox WHERE source_id = $1 OR subject = $2", [rule.id, DIRECT_SUBJECT]);
    await store.query("DELETE FROM alert_rules WHERE id = $1", [rule.id]);
  }
  if (external && store && ownerId) {
    await store.query("DELETE FROM inbox_messages WHERE user_id = $1", [ownerId]);
    await store.query("DELETE FROM users WHERE id = $1", [ownerId]);
  }
  await store?.close();
  await pg?.stop();
  await smtp?.close();
  await svc?.stop();
});

const DIRECT_SUBJECT = `Queued before the worker ${Date.now()}`;

function dashboardEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: url,
    SEPARATE_WORKER: "true",
    NEXTAUTH_SECRET: "worker-test-secret-worker-test-secret-0123456789",
    NEXTAUTH_URL: "http://localhost:3000",
    REPORT_TIMEZONE: "UTC",
    UPSTREAM_BASE_URL: svc!.url,
    UPSTREAM_CLIENT_ID: svc!.client.client_id,
    UPSTREAM_CLIENT_SECRET: svc!.client.client_secret,
    UPSTREAM_TOKEN_URL: `${svc!.url}/api/auth/token`,
    SMTP_HOST: smtp!.host,
    SMTP_PORT: String(smtp!.port),
    SMTP_TLS: "none",
    MAIL_FROM: "Payments alerts <alerts@test.local>",
    // A tick every second: what is asserted is whether a process ticks at all, not when (the
    // production interval of 30 s would make each process wait up to half a minute for its first).
    SCHEDULER_TICK_SECONDS: String(TICK_SECONDS),
  };
}

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** An hourly rule that fires (every day has attempts), made two hours ago so its latest slot is due. */
async function firingRule(name: string): Promise<AlertRule> {
  const created = await alertsRepo(store!).create({
    ownerId,
    name,
    definition: AlertDefinition.parse({
      target: { kind: "measure", measure: "attempts" },
      condition: { kind: "above", value: 0 },
      group_by: null,
      filters: {},
      window: "last7",
    }),
    schedule: SPEC,
    recipients: { users: [], emails: ["ops@test.local"] },
    cooldownMinutes: 60,
    paused: false,
  });
  await store!.query("UPDATE alert_rules SET created_at = now() - interval '2 hours', updated_at = now() - interval '2 hours' WHERE id = $1", [created.id]);
  return (await alertsRepo(store!).get(created.id))!;
}

/** Milliseconds until past the scheduler's next two ticks (its timer fires on every TICK_SECONDS of each minute). */
const pastNextTicks = () => 2 * TICK_SECONDS * 1000 - (Date.now() % (TICK_SECONDS * 1000)) + 1_000;

describe.runIf(available)("the background work in its own process", () => {
  it("runs in `npm run worker` and not in a web server started with SEPARATE_WORKER=true", async () => {
    // Far from the hour's end, so that the slot due now is still the latest when the worker runs it.
    const into = Date.now() % 3_600_000;
    if (into > 3_600_000 - 110_000) await new Promise((r) => setTimeout(r, 3_600_000 - into + 2_000));
    rule = await firingRule(`Worker process ${Date.now()}`);
    const slot = latestSlot(SPEC, new Date(), "UTC");
    await outboxRepo(store!, { enabled: true }).enqueue({
      ownerId,
      sourceKind: "test",
      sourceId: null,
      recipients: ["ops@test.local"],
      subject: DIRECT_SUBJECT,
      text: "queued directly",
      html: "<p>queued directly</p>",
    });

    // The web server: up past two scheduler ticks, with a due slot and a queued message.
    const web = run("lib/startup/testing/web-start.ts", ["--for", String(pastNextTicks())], dashboardEnv());
    expect(await web.exited, web.stderr()).toBe(0);
    expect(web.stdout()).toContain("background work left to the separate worker (SEPARATE_WORKER=true)");
    expect(await claimsRepo(store!).history("alert", rule.id)).toEqual([]);
    expect(await alertsRepo(store!).evaluations(rule.id)).toEqual([]);
    const unsent = await store!.query<{ sent: boolean }>("SELECT sent_at IS NOT NULL AS sent FROM mail_outbox WHERE subject = $1", [DIRECT_SUBJECT]);
    expect(unsent).toEqual([{ sent: false }]);
    expect(await smtp!.settled()).toEqual([]);

    // The worker: it sends what was queued at once, and runs the slot at its first tick.
    const worker = run("scripts/worker.ts", [], dashboardEnv());
    const mails = await smtp!.waitFor(2, 60_000);
    const subjects = mails.map((m) => m.parsed.subject).sort();
    expect(subjects).toEqual([`Alert: ${rule.name}: 1 firing`, DIRECT_SUBJECT].sort());
    expect(mails.every((m) => m.to.join() === "ops@test.local")).toBe(true);

    const started = /"msg":"worker started","worker_id":"([^"]+)"/.exec(worker.stdout());
    expect(started, worker.stdout()).not.toBeNull();
    const claims = await claimsRepo(store!).history("alert", rule.id);
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({ slot, claimedBy: started![1], error: null });
    expect(claims[0]!.doneAt).not.toBeNull();
    expect(await alertsRepo(store!).evaluations(rule.id)).toHaveLength(1);

    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.stderr()).toBe(0);
    expect(worker.stdout()).toContain('"msg":"worker stopping","signal":"SIGTERM"');
  });

  it("refuses to run without DATABASE_URL, saying the web server runs the work on the embedded store", async () => {
    const env = { ...dashboardEnv(), DATABASE_URL: "", SEPARATE_WORKER: "false" };
    const worker = run("scripts/worker.ts", [], env);
    expect(await worker.exited).toBe(1);
    expect(worker.stderr()).toContain("worker: set DATABASE_URL: without PostgreSQL the dashboard's web server runs the background work itself");
  });
});
