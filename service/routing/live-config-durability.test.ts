// A configuration change survives a crash: the real service in a child process applies versions
// while 32 clients route, is SIGKILLed with an apply in flight, and after a restart serves exactly
// the state a replay of its journal gives: the last version that reached the journal (every
// acknowledged one among them), every answered call recorded, call numbers unbroken.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema } from "@/lib/contract";
import { RoutingConfigVersionSchema } from "@/lib/contract/bin-routing";
import { createClient } from "../clients";
import { Database } from "../db";
import { generate } from "../data/generator";
import { migrate } from "../data/schema";
import { TokenSigner } from "../http/tokens";
import { TEST_TOKEN_SECRET } from "../testing/harness";
import { journalSegments } from "./journal";
import { parseBatchLine } from "./journal-segments";
import { loadRoutingConfig } from "./loader";
import { httpPoster, startServiceChild as startChild } from "./test-helpers";

const BIN_X = "999999";
const fallbackOf = (last: number) => ({
  group_id: 1,
  group_name: "fallback",
  selection_method: "ROUND_ROBIN",
  is_fallback: true,
  members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: last }],
});
const kept = { group_id: 2, group_name: "kept", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 4 }, { gateway_id: 5 }] };
/** Version k: the fallback's third member alternates (a reset each time), BIN_X always to the kept group. */
const configFor = (k: number) => ({
  groups: [fallbackOf(k % 2 === 0 ? 3 : 6), kept],
  rules: [{ type: "BIN", rule_name: `X${k}`, bin_prefix: BIN_X, group_id: 2, created_at: "2025-01-01T00:00:00Z" }],
});

let dir: string;
let dbPath: string;
let userToken: string;
let adminToken: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "routing-live-durability-"));
  dbPath = join(dir, "service.duckdb");
  const db = await Database.open(dbPath);
  try {
    await migrate(db);
    await generate(db, { days: 1, ordersPerDay: 1, seed: 3, endDate: "2025-07-31" });
    const r = await loadRoutingConfig(db, configFor(0));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const signer = new TokenSigner(TEST_TOKEN_SECRET, 3600);
    userToken = signer.issue((await createClient(db, "router")).client_id).token;
    adminToken = signer.issue((await createClient(db, "admin", ["routing-admin"])).client_id).token;
  } finally {
    db.close();
  }
});

/** Every service process this file starts: one a failed assertion left running is killed in afterAll. */
const children: Awaited<ReturnType<typeof startChild>>[] = [];
async function startServiceChild(path: string) {
  const started = await startChild(path);
  children.push(started);
  return started;
}

afterAll(async () => {
  for (const c of children) {
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
    await c.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The versions and per-group states a replay of the journal segments on disk gives (torn last line dropped). */
function journalVersions(): { version: number; config: unknown }[] {
  const out: { version: number; config: unknown }[] = [];
  for (const seg of journalSegments(dbPath)) {
    for (const line of readFileSync(seg.path, "utf8").split("\n")) {
      const b = line === "" ? undefined : parseBatchLine(line);
      if (b?.v) out.push({ version: b.v.version.version, config: b.v.version.config });
    }
  }
  return out;
}

/**
 * One life of the service: 32 routing clients, six acknowledged applies, then a seventh in flight
 * when the process is SIGKILLed: at once (`waitForLine` false), or as soon as the change's journal
 * line is written, before its answer can leave the process.
 */
async function crashRound(round: number, waitForLine: boolean) {
  const { child, url, exited } = await startServiceChild(dbPath);
  const router = httpPoster(url, { authorization: `Bearer ${userToken}` }, 32);
  const adminPost = httpPoster(url, { authorization: `Bearer ${adminToken}` }, 1);
  const answered = new Map<string, { group: number; gateway: number; call: number }>();
  let stop = false;
  const worker = async (w: number) => {
    for (let k = 0; !stop; k++) {
      const customer = `r${round}-w${w}-${k}`;
      try {
        const res = await router.route({ bin: k % 2 === 0 ? BIN_X : "000000", customer_id: customer });
        expect(res.status).toBe(200);
        const b = BinRoutingResponseSchema.parse(res.body);
        answered.set(customer, { group: b.group_id, gateway: Number(b.gateway_id), call: b.session_info.total_calls });
      } catch {
        return; // in flight when the process died
      }
    }
  };
  const workers = Promise.all(Array.from({ length: 32 }, (_, w) => worker(w)));
  const acknowledged: { version: number; config: unknown }[] = [];
  const apply = async (k: number) => {
    const res = await adminPost.post("/api/bin-routing/config", { ...configFor(k), reason: `round ${round} change ${k}`, author: "test" });
    expect(res.status).toBe(200);
    const v = RoutingConfigVersionSchema.parse(res.body.data);
    acknowledged.push({ version: v.version, config: v.config });
  };
  for (let k = 1; k <= 6; k++) {
    await new Promise((r) => setTimeout(r, 40));
    await apply(k);
  }
  let inFlightStatus = 0;
  let inFlightSettled = false;
  const inFlight = adminPost
    .post("/api/bin-routing/config", { ...configFor(7), reason: `round ${round} change 7`, author: "test" })
    .then((r) => (inFlightStatus = r.status))
    .catch(() => undefined)
    .finally(() => (inFlightSettled = true));
  let seen = false;
  if (waitForLine) {
    // Until the line is on disk or the apply has an answer: an event, not a deadline, so a slow
    // machine only makes the wait longer (the test's own timeout bounds it).
    const mark = `"reason":"round ${round} change 7"`;
    while (!(seen = journalSegments(dbPath).some((seg) => readFileSync(seg.path, "utf8").includes(mark))) && !inFlightSettled) {
      await new Promise((r) => setImmediate(r));
    }
  }
  child.kill("SIGKILL");
  stop = true;
  await exited;
  await Promise.all([workers, inFlight]);
  router.close();
  adminPost.close();

  const inJournal = journalVersions();
  const db = await Database.open(dbPath);
  const folded = (await db.all<{ v: number | null }>("SELECT max(version) AS v FROM routing_config_versions"))[0]?.v ?? 0;
  db.close();
  const expectedLive = Math.max(folded, ...inJournal.map((v) => v.version));
  // Every acknowledged version is durable; the one in flight is when its line was written.
  const lastAcknowledged = acknowledged[acknowledged.length - 1]!.version;
  expect(expectedLive).toBeGreaterThanOrEqual(lastAcknowledged);
  if (waitForLine) {
    // Seen in the journal (or answered before the poll saw it): live after the restart.
    expect(seen || inFlightStatus === 200, `the change's line was neither seen nor answered (status ${inFlightStatus})`).toBe(true);
    expect(expectedLive).toBe(lastAcknowledged + 1);
  }
  console.log(
    `live-config durability, round ${round}: ${acknowledged.length} versions acknowledged, ${inJournal.length} in the journal at the kill; ` +
      `the apply in flight ${expectedLive > lastAcknowledged ? "was durable (live after restart, unanswered)" : "never reached the journal"}`,
  );
  return { answered, acknowledged, inJournal, expectedLive };
}

describe("a configuration change across SIGKILL", () => {
  it("restarts on the journal's last version with every answered call and acknowledged version", async () => {
    const first = await crashRound(1, false);
    const second = await crashRound(2, true);
    const answered = new Map([...first.answered, ...second.answered]);
    const acknowledged = [...first.acknowledged, ...second.acknowledged];
    const inJournal = [...first.inJournal, ...second.inJournal];
    const expectedLive = second.expectedLive;

    const again = await startServiceChild(dbPath);
    const live = (await (await fetch(`${again.url}/api/bin-routing/config`, { headers: { authorization: `Bearer ${userToken}` } })).json()) as { data: unknown };
    const liveVersion = RoutingConfigVersionSchema.parse(live.data);
    const versions = ((await (await fetch(`${again.url}/api/bin-routing/config/versions`, { headers: { authorization: `Bearer ${userToken}` } })).json()) as { data: unknown[] }).data.map((v) =>
      RoutingConfigVersionSchema.parse(v),
    );
    const afterCalls = await Promise.all(
      ["000000", BIN_X].map(async (bin) => {
        const p = httpPoster(again.url, { authorization: `Bearer ${userToken}` }, 1);
        const r = BinRoutingResponseSchema.parse((await p.route({ bin, customer_id: `after-${bin}` })).body);
        p.close();
        return r;
      }),
    );
    again.child.kill("SIGTERM");
    await again.exited;

    expect(liveVersion.version).toBe(expectedLive);
    for (const a of acknowledged) expect(versions.find((v) => v.version === a.version)?.config).toEqual(a.config);
    for (const j of inJournal) expect(versions.find((v) => v.version === j.version)?.config).toEqual(j.config);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: expectedLive }, (_, i) => expectedLive - i));

    const db = await Database.open(dbPath);
    try {
      const rows = await db.all<{ customer_id: string; group_id: number; gateway_id: number; call_no: number }>(
        "SELECT customer_id, group_id, gateway_id, call_no::INTEGER AS call_no FROM routing_decisions ORDER BY group_id, call_no",
      );
      const recorded = new Map(rows.map((r) => [r.customer_id, r]));
      for (const [customer, a] of answered) expect(recorded.get(customer)).toEqual({ customer_id: customer, group_id: a.group, gateway_id: a.gateway, call_no: a.call });
      for (const [g, post] of [
        [1, afterCalls[0]!],
        [2, afterCalls[1]!],
      ] as const) {
        const calls = rows.filter((r) => r.group_id === g);
        expect(calls.map((r) => r.call_no)).toEqual(calls.map((_, i) => i + 1));
        expect(post.session_info.total_calls).toBe(calls.length);
      }
      // The kept group never restarted: its whole history is one rotation.
      expect(rows.filter((r) => r.group_id === 2).map((r) => r.gateway_id)).toEqual(rows.filter((r) => r.group_id === 2).map((_, i) => [4, 5][i % 2]));
      const stored = await db.all<{ v: number }>("SELECT max(version) AS v FROM routing_config_versions");
      expect(stored[0]?.v).toBe(expectedLive);
    } finally {
      db.close();
    }
  });
});
