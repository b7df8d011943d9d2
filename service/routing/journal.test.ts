// The routing journal on its own: group commit, replay after a crash (torn last line, crash between
// fold and delete), and refusal of a damaged journal.
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Database } from "../db";
import { migrate } from "../data/schema";
import { foldJournal, journalSegments, RoutingJournal, type DecisionRecord, type StateRecord } from "./journal";
import { loadRoutingConfig } from "./loader";

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "routing-journal-"));
  db = await Database.open(join(dir, "service.duckdb"));
  await migrate(db);
  await db.run("INSERT INTO gateways VALUES (1, 'G1', 'Acq', '5968'), (2, 'G2', 'Acq', '5968')");
  const r = await loadRoutingConfig(db, {
    groups: [{ group_id: 1, group_name: "rr", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }] }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for the engine: one round-robin group over gateways 1 and 2. */
function fakeGroup() {
  const state = { n: 0, p: 0 };
  return {
    decide(customer: string): DecisionRecord {
      const gateway = state.p + 1;
      state.p = (state.p + 1) % 2;
      state.n += 1;
      return { t: Date.now(), b: "414720", r: "FALLBACK", f: true, g: 1, w: gateway, n: state.n, c: customer };
    },
    snapshot: (g: number): StateRecord => ({ g, n: state.n, p: state.p, c: [0, 0], r: null }),
  };
}

const decisionCount = async () => Number((await db.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM routing_decisions"))[0]?.n);
const groupState = async () => (await db.all<{ total_calls: number; position: number }>("SELECT total_calls::INTEGER AS total_calls, position FROM routing_group_state"))[0];

describe("routing journal", () => {
  it("group-commits concurrent decisions: fewer lines than calls, every call durable before it resolves", async () => {
    const g = fakeGroup();
    const logs: string[] = [];
    const journal = await RoutingJournal.open(db, g.snapshot, { log: (level, msg) => logs.push(`${level}: ${msg}`) });
    const done = await Promise.all(Array.from({ length: 300 }, (_, i) => journal.append(g.decide(`c${i}`)).then(() => i)));
    expect(done).toHaveLength(300);
    const [seg] = journalSegments(db.path);
    const lines = readFileSync(seg!.path, "utf8").trim().split("\n");
    expect(lines.length).toBeLessThan(300);
    expect(lines.reduce((n, l) => n + (JSON.parse(l) as { d: unknown[] }).d.length, 0)).toBe(300);
    expect(journal.durableSeq).toBe(lines.length);
    await journal.close();
    expect(journalSegments(db.path)).toEqual([]);
    expect(await decisionCount()).toBe(300);
    expect(await groupState()).toEqual({ total_calls: 300, position: 0 });
    // Folded by DuckDB reading the sealed segment itself (no fallback to the in-memory copy).
    expect(logs.filter((l) => l.startsWith("error"))).toEqual([]);
    expect(logs.some((l) => l.includes("routing journal closed"))).toBe(true);
  });

  it("replays a crashed journal, dropping a torn last line; replaying again after a crash mid-fold adds nothing", async () => {
    const g = fakeGroup();
    // This writer "crashes" (is never closed), so it must not fold on its own during the test.
    const journal = await RoutingJournal.open(db, g.snapshot, { foldIntervalMs: 1e9 });
    for (let i = 0; i < 5; i++) await journal.append(g.decide(`c${i}`)); // 5 batches
    // "Crash": the process dies with a half-written batch at the end of the file.
    const [seg] = journalSegments(db.path);
    appendFileSync(seg!.path, '{"seq":6,"s":[{"g":1,"n":6');
    const backup = join(dir, "segment.bak");
    copyFileSync(seg!.path, backup);

    const replay = await foldJournal(db);
    expect(replay).toEqual({ batches: 5, decisions: 5, tornTail: true });
    expect(journalSegments(db.path)).toEqual([]);
    expect(await decisionCount()).toBe(5);
    expect(await groupState()).toEqual({ total_calls: 5, position: 1 });

    // The segment reappears as if the crash had come after the fold's commit but before the delete.
    copyFileSync(backup, seg!.path);
    expect((await foldJournal(db)).batches).toBe(0);
    expect(await decisionCount()).toBe(5);

    // A new writer continues the sequence numbers.
    const next = await RoutingJournal.open(db, g.snapshot);
    expect(next.durableSeq).toBe(5);
    await next.append(g.decide("c5"));
    expect(next.durableSeq).toBe(6);
    await next.close();
    expect(await groupState()).toEqual({ total_calls: 6, position: 0 });
  });

  it("refuses a journal damaged before its last line, applying nothing", async () => {
    const seg = join(dir, "service.duckdb.routing-journal.00000001.jnl");
    const good = JSON.stringify({ seq: 1, s: [{ g: 1, n: 1, p: 1, c: [0, 0], r: null }], d: [{ t: 0, b: "414720", r: "FALLBACK", f: true, g: 1, w: 1, n: 1 }] });
    writeFileSync(seg, `${good}\nnot json\n${good.replace('"seq":1', '"seq":2')}\n`);
    await expect(foldJournal(db)).rejects.toThrow(/damaged at line 2/);
    expect(await decisionCount()).toBe(0);
    expect(journalSegments(db.path)).toHaveLength(1);
  });
});
