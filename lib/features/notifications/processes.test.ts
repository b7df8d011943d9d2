// Two dashboard processes on one real PostgreSQL database, each running the real scheduler and mail
// worker (lib/features/notifications/testing/run-scheduler.ts, wired as lib/features/notifications/slots.ts wires the server) against
// the real service and a real SMTP server in this test: a due slot is evaluated and mailed once in
// all, and a slot whose claimer died is run once after its lease ran out. The server is a throwaway
// cluster (lib/core/store/testing/postgres.ts), or the scratch database TEST_DATABASE_URL names; the file is
// skipped only on a machine without PostgreSQL.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import { todayIn } from "@/lib/contract/dates";
import { AlertDefinition } from "@/lib/features/notifications/definition";
import { claimsRepo } from "@/lib/features/notifications/claims";
import { latestSlot } from "@/lib/features/notifications/spec";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import type { AlertRule } from "@/lib/features/notifications/model";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { usersRepo } from "@/lib/core/auth/users";
import { startTestService, type TestService } from "@/service/testing/harness";
import { startTestSmtp, type TestSmtp } from "./testing/smtp";

const external = process.env.TEST_DATABASE_URL;
const available = external !== undefined || postgresBinDir() !== null;
if (!available) console.warn("lib/features/notifications/processes.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

const SPEC = { every: "hour" } as const;

let pg: TestPostgres | null = null;
let store: Store | null = null;
let url: string;
let svc: TestService | null = null;
let smtp: TestSmtp | null = null;
let ownerId: string;
const ruleIds: string[] = [];

beforeAll(async () => {
  if (!available) return;
  if (external) url = external;
  else {
    pg = await startTestPostgres();
    url = pg.url;
  }
  // The schema exists before the processes start (as after a deploy).
  store = await openStore({ kind: "postgres", url }, { owner: "notify processes test" });
  const email = `owner-${Date.now()}@test.local`;
  ownerId = (await usersRepo(store).create({ email, role: "analyst", passwordHash: await hashPassword("irrelevant-password") })).id;
  svc = await startTestService({ data: { days: 14, ordersPerDay: 20, seed: 3, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  smtp = await startTestSmtp();
});

afterAll(async () => {
  // A scratch database named from outside keeps its schema; only this test's rows go.
  if (external && store) {
    await store.query("DELETE FROM schedule_claims WHERE item_id = ANY($1::uuid[])", [ruleIds]);
    await store.query("DELETE FROM mail_outbox WHERE source_id = ANY($1::uuid[])", [ruleIds]);
    await store.query("DELETE FROM alert_rules WHERE id = ANY($1::uuid[])", [ruleIds]);
    if (ownerId) {
      await store.query("DELETE FROM inbox_messages WHERE user_id = $1", [ownerId]);
      await store.query("DELETE FROM users WHERE id = $1", [ownerId]);
    }
  }
  await store?.close();
  await pg?.stop();
  await smtp?.close();
  await svc?.stop();
});

/** An hourly rule that fires (every day has attempts, so an approval rate above 0 %), made two hours ago. */
async function firingRule(name: string): Promise<AlertRule> {
  const rule = await alertsRepo(store!).create({
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
  ruleIds.push(rule.id);
  // The scheduler counts slots from the rule's last edit (an edited rule waits for its next slot).
  await store!.query("UPDATE alert_rules SET created_at = now() - interval '2 hours', updated_at = now() - interval '2 hours' WHERE id = $1", [rule.id]);
  return (await alertsRepo(store!).get(rule.id))!;
}

/** Outside the last and first seconds of an hour, so that the slot a run sees is the one the test expects. */
async function awayFromHourBoundary(runMs: number): Promise<void> {
  const into = Date.now() % 3_600_000;
  if (into > 3_600_000 - runMs - 5_000) await new Promise((r) => setTimeout(r, 3_600_000 - into + 2_000));
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Summary {
  worker: string;
  ticks: number;
  ran: { kind: string; id: string; slot: string; late: boolean; error: string | null }[];
  sent: number;
}

function dashboardProcess(worker: string, args: string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "lib/features/notifications/testing/run-scheduler.ts", "--worker", worker, ...args], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        NEXTAUTH_SECRET: "processes-test-secret-processes-test-secret-0123",
        NEXTAUTH_URL: "http://localhost:3000",
        REPORT_TIMEZONE: "UTC",
        UPSTREAM_BASE_URL: svc!.url,
        UPSTREAM_CLIENT_ID: svc!.client.client_id,
        UPSTREAM_CLIENT_SECRET: svc!.client.client_secret,
        UPSTREAM_TOKEN_URL: `${svc!.url}/api/auth/token`,
        UPSTREAM_REPORT_RATE_LIMIT: "100",
        UPSTREAM_RATE_WINDOW_SECONDS: "1",
        SMTP_HOST: smtp!.host,
        SMTP_PORT: String(smtp!.port),
        SMTP_TLS: "none",
        MAIL_FROM: "Payments alerts <alerts@test.local>",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 40_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const summaryOf = (o: Outcome): Summary => JSON.parse(o.stdout.trim().split("\n").at(-1)!) as Summary;
const mailsAbout = async (rule: AlertRule) => (await smtp!.settled()).filter((m) => (m.parsed.subject ?? "").startsWith(`Alert: ${rule.name}:`));

describe.runIf(available)("two dashboard processes on one PostgreSQL", () => {
  it("Two dashboard processes on one PostgreSQL database never send the same slot twice (count messages)", async () => {
    await awayFromHourBoundary(15_000);
    const rule = await firingRule("Both processes");
    const slot = latestSlot(SPEC, new Date(), "UTC");
    const common = ["--start-at", String(Date.now() + 3_000), "--for", "8000", "--every", "100"];
    const [a, b] = await Promise.all([dashboardProcess("dashboard-a", common), dashboardProcess("dashboard-b", common)]);
    for (const o of [a, b]) expect(o, o.stderr).toMatchObject({ code: 0, stderr: "" });
    const summaries = [a, b].map(summaryOf);
    // Both really ran the whole time, ticking many times.
    expect(summaries.every((s) => s.ticks > 10)).toBe(true);

    // One of them ran the slot, without error; the other ran nothing of this rule.
    const runs = summaries.flatMap((s) => s.ran.filter((r) => r.id === rule.id).map((r) => ({ ...r, worker: s.worker })));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ kind: "alert", slot: slot.toISOString(), error: null });

    // Exactly one message reached the mail server.
    const mails = await mailsAbout(rule);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(["ops@test.local"]);
    expect(mails[0]!.parsed.subject).toBe(`Alert: ${rule.name}: 1 firing`);
    expect(summaries.reduce((n, s) => n + s.sent, 0)).toBe(1);

    // The store agrees: one claim, done; one evaluation; one outbox row, sent.
    const claims = await claimsRepo(store!).history("alert", rule.id);
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({ slot, error: null });
    expect(claims[0]!.doneAt).not.toBeNull();
    expect(["dashboard-a", "dashboard-b"]).toContain(claims[0]!.claimedBy);
    expect(await alertsRepo(store!).evaluations(rule.id)).toHaveLength(1);
    const outbox = await store!.query<{ sent: boolean }>("SELECT sent_at IS NOT NULL AS sent FROM mail_outbox WHERE source_id = $1", [rule.id]);
    expect(outbox).toEqual([{ sent: true }]);
  });

  it("a restart during a due slot sends it once", async () => {
    await awayFromHourBoundary(12_000);
    const rule = await firingRule("After a restart");
    const slot = latestSlot(SPEC, new Date(), "UTC");
    // A process claimed the slot and died before running it: its 1-second lease runs out.
    expect(await claimsRepo(store!).claim("alert", rule.id, slot, "dead-dashboard", 1, false)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_500));

    const o = await dashboardProcess("dashboard-restarted", ["--for", "5000", "--every", "100"]);
    expect(o, o.stderr).toMatchObject({ code: 0, stderr: "" });
    const runs = summaryOf(o).ran.filter((r) => r.id === rule.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ slot: slot.toISOString(), error: null });

    const mails = await mailsAbout(rule);
    expect(mails).toHaveLength(1);
    const claims = await claimsRepo(store!).history("alert", rule.id);
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({ claimedBy: "dashboard-restarted", error: null });
    expect(claims[0]!.doneAt).not.toBeNull();
    expect(await alertsRepo(store!).evaluations(rule.id)).toHaveLength(1);
  });
});
