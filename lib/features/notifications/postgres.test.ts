// Two dashboard processes ticking schedulers over one real PostgreSQL server: each due slot runs
// exactly once in total, also one whose claimer died. The server is a throwaway cluster (lib/core/store/testing/postgres.ts), or the
// scratch database TEST_DATABASE_URL names; the file is skipped only on a machine without PostgreSQL.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { claimsRepo } from "./claims";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";

const external = process.env.TEST_DATABASE_URL;
const available = external !== undefined || postgresBinDir() !== null;
if (!available) console.warn("lib/features/notifications/postgres.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

let server: TestPostgres | null = null;
let store: Store | null = null;
let dir: string;
let url: string;
const itemIds = [randomUUID(), randomUUID(), randomUUID()];
const raceId = randomUUID();

beforeAll(async () => {
  if (!available) return;
  dir = mkdtempSync(join(tmpdir(), "schedule-pg-"));
  if (external) url = external;
  else {
    server = await startTestPostgres();
    url = server.url;
  }
  // The schema exists before the instances start (as it would after a deploy); they create nothing.
  store = await openStore({ kind: "postgres", url }, { owner: "schedule test" });
});

afterAll(async () => {
  // A scratch database named from outside keeps its schema; only this test's claims go.
  if (external && store) await store.query("DELETE FROM schedule_claims WHERE item_id = ANY($1::uuid[])", [[...itemIds, raceId]]);
  await store?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function tickLoop(args: string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "lib/features/notifications/testing/tick-loop.ts", ...args], {
      env: { ...process.env, DATABASE_URL: url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.runIf(available)("scheduler on PostgreSQL", () => {
  it("runs each due slot exactly once across two processes ticking together", async () => {
    const out = join(dir, "runs.log");
    const items = [
      { kind: "alert", id: itemIds[0], spec: { every: "day", hour: 8 }, notBefore: "2026-01-01T00:00:00Z", paused: false },
      { kind: "subscription", id: itemIds[1], spec: { every: "hour", minute: 0 }, notBefore: "2026-01-01T00:00:00Z", paused: false },
      { kind: "alert", id: itemIds[2], spec: { every: "week", weekday: 3, hour: 8 }, notBefore: "2026-01-01T00:00:00Z", paused: false },
    ];
    // 2026-06-10 is a Wednesday: all three are due at 08:00, ten seconds before "now".
    // The third was claimed by an instance that died before running it; its lease runs out before
    // the two start, so they race to take it over (the conditional UPDATE) as well as to insert.
    expect(await claimsRepo(store!).claim("alert", itemIds[2]!, new Date("2026-06-10T08:00:00Z"), "dead-instance", 2, false)).toBe(true);
    const common = ["--out", out, "--items", JSON.stringify(items), "--now", "2026-06-10T08:00:10Z", "--start-at", String(Date.now() + 4000), "--for", "3000"];
    const [a, b] = await Promise.all([tickLoop(["--worker", "instance-a", ...common]), tickLoop(["--worker", "instance-b", ...common])]);
    for (const o of [a, b]) expect(o, o.stderr).toMatchObject({ code: 0, stderr: "" });
    const summaries = [a, b].map((o) => JSON.parse(o.stdout.trim()) as { worker: string; ticks: number; ran: number });
    expect(summaries.every((s) => s.ticks > 5)).toBe(true); // both really ticked, many times

    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines).toHaveLength(3);
    const ran = lines.map((l) => l.split(" ")).map(([, kind, id, slot, late]) => ({ kind, id, slot, late }));
    expect(ran.map((r) => r.id).sort()).toEqual([...itemIds].sort());
    expect(ran.every((r) => r.slot === "2026-06-10T08:00:00.000Z" && r.late === "on-time")).toBe(true);
    expect(summaries.reduce((n, s) => n + s.ran, 0)).toBe(3);

    const claims = await store!.query<{ item_id: string; claimed_by: string; done: boolean }>(
      "SELECT item_id, claimed_by, done_at IS NOT NULL AS done FROM schedule_claims WHERE item_id = ANY($1::uuid[])",
      [itemIds],
    );
    expect(claims).toHaveLength(3);
    expect(claims.every((c) => c.done && ["instance-a", "instance-b"].includes(c.claimed_by))).toBe(true);
  });

  it("lets one of ten claims racing on separate connections win a slot, and one of ten take it over", async () => {
    const claims = claimsRepo(store!);
    const slot = new Date("2026-06-10T08:00:00Z");
    const workers = Array.from({ length: 10 }, (_, i) => `racer-${i}`);
    const first = await Promise.all(workers.map((w) => claims.claim("subscription", raceId, slot, w, 1, false)));
    expect(first.filter(Boolean)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1200));
    const second = await Promise.all(workers.map((w) => claims.claim("subscription", raceId, slot, w, 60, true)));
    expect(second.filter(Boolean)).toHaveLength(1);
    const holder = workers[second.indexOf(true)]!;
    expect(await claims.get("subscription", raceId, slot)).toMatchObject({ claimedBy: holder, late: true, doneAt: null });
    expect(await claims.complete("subscription", raceId, slot, holder)).toBe(true);
  });
});
