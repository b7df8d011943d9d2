// Versions of the configuration from the operator's side: `routing load` records numbered versions
// with their reason and rotation outcomes, `create-client --scope` grants the routing-admin scope
// (and refuses an unknown one), and the rotation rule on its own.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database } from "../db";
import { generate } from "../data/generator";
import { migrate } from "../data/schema";
import { groupSignature, type RoutingConfig } from "./model";
import { carryRotation, membersOf, selectVersions } from "./versions";

let dir: string;
let dbPath: string;
const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "service/cli.ts", ...args], { encoding: "utf8" });

const group = (id: number, members: { gateway_id: number; weight?: number; active?: boolean }[], extra: Partial<RoutingConfig["groups"][number]> = {}) => ({
  group_id: id,
  group_name: `g${id}`,
  selection_method: "ROUND_ROBIN" as const,
  cycle_scope: 2 as const,
  is_fallback: id === 1,
  members: members.map((m) => ({ weight: 1, active: true, ...m })),
  ...extra,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "routing-versions-"));
  dbPath = join(dir, "service.duckdb");
  const db = await Database.open(dbPath);
  try {
    await migrate(db);
    await generate(db, { days: 1, ordersPerDay: 1, seed: 3, endDate: "2025-07-31" });
  } finally {
    db.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("routing versions from the CLI", () => {
  it("routing load records each load as a version with its reason and rotation outcomes", async () => {
    const a = join(dir, "a.json");
    const b = join(dir, "b.json");
    writeFileSync(a, JSON.stringify({ groups: [group(1, [{ gateway_id: 1 }, { gateway_id: 2 }]), group(2, [{ gateway_id: 3 }])] }));
    writeFileSync(b, JSON.stringify({ groups: [group(1, [{ gateway_id: 1 }, { gateway_id: 2, active: false }]), group(2, [{ gateway_id: 3 }])] }));
    const first = cli("routing", "load", "--db", dbPath, "--file", a, "--reason", "first", "--author", "ops");
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("as version 1");
    const second = cli("routing", "load", "--db", dbPath, "--file", b);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain("as version 2");
    const db = await Database.open(dbPath);
    try {
      const versions = await selectVersions(db);
      expect(versions.map((v) => [v.version, v.author, v.reason])).toEqual([
        [1, "ops", "first"],
        [2, "routing load", "loaded from a file"],
      ]);
      expect(versions[1]!.rotation.map((o) => [o.group_id, o.outcome, o.reason])).toEqual([
        [1, "reset", "active flags changed: gateways 2; rotation restarts at the first active member"],
        [2, "kept", "selection method and member list unchanged"],
      ]);
      // Every default is filled in, so the version reproduces the tables.
      expect(versions[0]!.config.groups[0]!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    } finally {
      db.close();
    }
  });

  it("create-client --scope routing-admin grants the scope; an unknown scope is refused", () => {
    const made = cli("create-client", "--db", dbPath, "--name", "admin", "--scope", "routing-admin");
    expect(made.status, made.stderr).toBe(0);
    const bad = cli("create-client", "--db", dbPath, "--name", "x", "--scope", "everything");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--scope must be one of routing-admin");
    const listed = cli("list-clients", "--db", dbPath)
      .stdout.trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { name: string; scopes: string[] });
    expect(listed.map((c) => [c.name, c.scopes])).toEqual([["admin", ["routing-admin"]]]);
  });
});

describe("the rotation rule", () => {
  const state = (totalCalls: number, position: number) => ({ totalCalls, position, credits: [0, 0], randomNext: null });
  const before = (cfg: RoutingConfig, states: Record<number, ReturnType<typeof state>>) =>
    new Map(cfg.groups.map((g) => [g.group_id, { signature: groupSignature(g.selection_method, membersOf(g)), state: states[g.group_id]! }]));
  const base: RoutingConfig = { groups: [group(1, [{ gateway_id: 1 }, { gateway_id: 2 }]), group(2, [{ gateway_id: 3 }, { gateway_id: 4 }])], rules: [] };

  it("keeps an unchanged group's rotation, restarts a changed one, keeps call counts, names new and removed groups", () => {
    const prev = before(base, { 1: state(10, 1), 2: state(7, 1) });
    const next: RoutingConfig = {
      groups: [group(1, [{ gateway_id: 1 }, { gateway_id: 2 }], { group_name: "renamed", cycle_scope: 0 }), group(3, [{ gateway_id: 5 }])],
      rules: [],
    };
    const { states, rotation } = carryRotation(prev, next);
    expect(states.get(1)!.state).toEqual(state(10, 1));
    expect(states.get(3)!.state.totalCalls).toBe(0);
    expect(rotation).toEqual([
      { group_id: 1, outcome: "kept", reason: "selection method and member list unchanged", total_calls: 10 },
      { group_id: 3, outcome: "new", reason: "new group; rotation starts at the first active member", total_calls: 0 },
      { group_id: 2, outcome: "removed", reason: "group removed; its state is dropped", total_calls: 7 },
    ]);
  });

  it.each([
    ["order", [{ gateway_id: 4 }, { gateway_id: 3 }], "member order changed"],
    ["weight", [{ gateway_id: 3, weight: 2 }, { gateway_id: 4 }], "weights changed: gateways 3"],
    ["gateway", [{ gateway_id: 3 }, { gateway_id: 9 }], "gateways added: 9; gateways removed: 4"],
  ])("restarts on a changed %s, with the reason", (_what, members, reason) => {
    const prev = before(base, { 1: state(10, 1), 2: state(7, 1) });
    const { states, rotation } = carryRotation(prev, { groups: [base.groups[0]!, group(2, members)], rules: [] });
    expect(states.get(2)!.state).toMatchObject({ totalCalls: 7, position: 0 });
    expect(rotation[1]).toEqual({ group_id: 2, outcome: "reset", reason: `${reason}; rotation restarts at the first active member`, total_calls: 7 });
  });

  it("restarts when only the method changes", () => {
    const prev = before(base, { 1: state(10, 1), 2: state(7, 1) });
    const { rotation } = carryRotation(prev, { groups: [base.groups[0]!, group(2, [{ gateway_id: 3 }, { gateway_id: 4 }], { selection_method: "WEIGHTAGE" })], rules: [] });
    expect(rotation[1]!.reason).toBe("selection method ROUND_ROBIN → WEIGHTAGE; rotation restarts at the first active member");
  });
});
