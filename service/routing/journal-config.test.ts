// A configuration change in the journal, folded by the running writer (from the segment files, as
// at every background fold and at shutdown) and by a replay after a crash: both must leave the same
// version, configuration tables and state rows.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Database } from "../db";
import { migrate } from "../data/schema";
import { foldJournal, journalSegments, RoutingJournal, type DecisionRecord, type StateRecord } from "./journal";
import { loadRoutingConfig, readRoutingConfig } from "./loader";
import { groupSignature, type RoutingConfig } from "./model";
import { completeConfig, membersOf, selectVersions, type ConfigVersion } from "./versions";

let dir: string;
let db: Database;

const configWith = (gateways: number[]): RoutingConfig =>
  completeConfig(
    {
      groups: [{ group_id: 1, group_name: "rr", selection_method: "ROUND_ROBIN", cycle_scope: 2, is_fallback: true, members: gateways.map((gateway_id) => ({ gateway_id, weight: 1, active: true })) }],
      rules: [],
    },
    Date.parse("2025-07-01T00:00:00Z"),
  );

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "routing-journal-config-"));
  db = await Database.open(join(dir, "service.duckdb"));
  await migrate(db);
  await db.run("INSERT INTO gateways VALUES (1, 'G1', 'Acq', '5968'), (2, 'G2', 'Acq', '5968'), (3, 'G3', 'Acq', '5968')");
  const r = await loadRoutingConfig(db, configWith([1, 2]));
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for the engine: one round-robin group whose member list changes at `change`. */
async function writeJournal(): Promise<RoutingJournal> {
  let gateways = [1, 2];
  const state = { n: 0, p: 0 };
  const decide = (c: string): DecisionRecord => {
    const w = gateways[state.p]!;
    state.p = (state.p + 1) % gateways.length;
    state.n += 1;
    return { t: Date.now(), b: "414720", r: "FALLBACK", f: true, g: 1, w, n: state.n, c };
  };
  const snapshot = (g: number): StateRecord => ({ g, n: state.n, p: state.p, c: [0, 0], r: null });
  const journal = await RoutingJournal.open(db, snapshot);
  const before = Array.from({ length: 25 }, (_, i) => journal.append(decide(`a${i}`)));
  const config = configWith([1, 3]);
  const version: ConfigVersion = { version: 2, created_at: "2025-07-02T00:00:00.000Z", author: "t", reason: "swap 2 for 3", client_id: "cl_x", restored_from: null, config, rotation: [] };
  // The decisions queued so far go into the change's line with their state as of now; then the swap.
  const change = journal.appendConfig({ version, states: [{ g: 1, sig: groupSignature("ROUND_ROBIN", membersOf(config.groups[0]!)), n: state.n, p: 0, c: [0, 0], r: null }] });
  gateways = [1, 3];
  state.p = 0;
  const after = Array.from({ length: 11 }, (_, i) => journal.append(decide(`b${i}`)));
  await Promise.all([...before, change, ...after]);
  return journal;
}

async function expectFolded(): Promise<void> {
  const versions = await selectVersions(db);
  expect(versions.map((v) => [v.version, v.reason, v.client_id])).toEqual([
    [1, "loaded from a file", null],
    [2, "swap 2 for 3", "cl_x"],
  ]);
  const { config, status } = await readRoutingConfig(db);
  expect(config.groups[0]!.members.map((m) => m.gateway_id)).toEqual([1, 3]);
  // 36 calls; 11 since the restart of the rotation: position 11 % 2 = 1, next gateway 3.
  expect(status).toEqual([{ group_id: 1, total_calls: 36, next_gateway_id: "3" }]);
  const rows = await db.all<{ c: string; w: number }>("SELECT customer_id AS c, gateway_id AS w FROM routing_decisions ORDER BY call_no");
  expect(rows).toHaveLength(36);
  expect(rows.filter((r) => r.c.startsWith("b")).map((r) => r.w)).toEqual(Array.from({ length: 11 }, (_, i) => [1, 3][i % 2]));
}

describe("a configuration change in the routing journal", () => {
  it("is folded by the running writer from the segment files", async () => {
    const journal = await writeJournal();
    await journal.close();
    expect(journalSegments(db.path)).toEqual([]);
    await expectFolded();
  });

  it("is replayed after a crash to the same state", async () => {
    const journal = await writeJournal();
    // What a crash leaves: the segments as they are now, before any fold.
    const saved = journalSegments(db.path).map((s) => {
      copyFileSync(s.path, `${s.path}.saved`);
      return s.path;
    });
    await journal.close();
    const folded = { versions: await selectVersions(db), config: await readRoutingConfig(db) };
    // Back to the state before the fold: a fresh database with the same starting point, then replay.
    db.close();
    rmSync(join(dir, "service.duckdb"));
    db = await Database.open(join(dir, "service.duckdb"));
    await migrate(db);
    await db.run("INSERT INTO gateways VALUES (1, 'G1', 'Acq', '5968'), (2, 'G2', 'Acq', '5968'), (3, 'G3', 'Acq', '5968')");
    const r = await loadRoutingConfig(db, configWith([1, 2]));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    for (const p of saved) copyFileSync(`${p}.saved`, p);
    const replayed = await foldJournal(db);
    expect(replayed.decisions).toBe(36);
    await expectFolded();
    const again = { versions: await selectVersions(db), config: await readRoutingConfig(db) };
    expect(again.config).toEqual(folded.config);
    expect(again.versions.map((v) => ({ ...v, created_at: "" }))).toEqual(folded.versions.map((v) => ({ ...v, created_at: "" })));
  });
});
