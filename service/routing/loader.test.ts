// Loading and showing the routing configuration: every problem named, nothing changed on failure,
// state carried over, the CLI commands, and the demo configuration.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database } from "../db";
import { generate } from "../data/generator";
import { migrate } from "../data/schema";
import { buildDemoRoutingConfig, seedDemoRouting } from "./demo";
import { formatRoutingShow, loadRoutingConfig, readRoutingConfig } from "./loader";
import { RoutingConfigFileSchema, type RoutingConfigFile } from "./model";
import { binsByBank } from "./test-helpers";

let dir: string;
let dbPath: string;
let db: Database;
let bank: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "routing-loader-"));
  dbPath = join(dir, "service.duckdb");
  db = await Database.open(dbPath);
  await migrate(db);
  await generate(db, { days: 1, ordersPerDay: 1, seed: 5, endDate: "2025-07-31" });
  bank = (await binsByBank(db))[0]!.bank;
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const good = (): RoutingConfigFile => ({
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }] },
    { group_id: 2, group_name: "weighted", selection_method: "WEIGHTAGE", cycle_scope: 0, members: [{ gateway_id: 3, weight: 2 }, { gateway_id: 4 }] },
  ],
  rules: [
    { type: "BIN", rule_name: "bin", bin_prefix: "4147201", group_id: 2, created_at: "2025-03-01T10:00:00Z" },
    { type: "BANK", rule_name: "bank", bank, group_id: 2 },
  ],
});

describe("routing load: validation", () => {
  it("names every problem, with its path, and changes nothing", async () => {
    expect((await loadRoutingConfig(db, good())).ok).toBe(true);
    const before = await readRoutingConfig(db);
    const bad = {
      groups: [
        { group_id: 1, group_name: "a", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 999 }] },
        { group_id: 1, group_name: "b", selection_method: "WEIGHTAGE", is_fallback: true, members: [{ gateway_id: 2, weight: 0 }, { gateway_id: 2 }] },
        { group_id: 3, group_name: "c", selection_method: "FASTEST", members: [] },
      ],
      rules: [
        { type: "BIN", rule_name: "letters", bin_prefix: "41a720", group_id: 1 },
        { type: "BIN", rule_name: "short", bin_prefix: "41472", group_id: 1 },
        { type: "BIN", rule_name: "long", bin_prefix: "414720123", group_id: 1 },
        { type: "BIN", rule_name: "nogroup", bin_prefix: "414720", group_id: 42 },
        { type: "BIN", rule_name: "letters", bin_prefix: "414721", group_id: 1 },
        { type: "CARD", rule_name: "type", group_id: 1 },
        { type: "BIN", rule_name: "typo", bin_prefix: "414722", group_id: 1, enabeld: false },
      ],
    };
    const r = await loadRoutingConfig(db, bad);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "groups[0].members[0].gateway_id", // no such gateway (checked alongside the shape)
        "groups[1].group_id", // duplicate id
        "groups[1].is_fallback", // second fallback
        "groups[1].members[0].weight", // weight 0
        "groups[1].members[1].gateway_id", // duplicate member
        "groups[2].selection_method",
        "groups[2].members", // empty
        "rules[0].bin_prefix",
        "rules[1].bin_prefix",
        "rules[2].bin_prefix",
        "rules[3].group_id",
        "rules[4].rule_name", // duplicate name
        "rules[5].type",
        "rules[6].enabeld",
      ]),
    );
    expect(r.problems.find((p) => p.path === "groups[1].members[0].weight")?.message).toMatch(/≥ 1/);
    expect(r.problems.find((p) => p.path === "rules[0].bin_prefix")?.message).toMatch(/6 to 8 digits/);
    expect(await readRoutingConfig(db)).toEqual(before);
  });

  it("checks gateways and banks against the reference data, and changes nothing", async () => {
    const before = await readRoutingConfig(db);
    const cfg = good();
    cfg.groups[1]!.members.push({ gateway_id: 9999 });
    cfg.rules!.push({ type: "BANK", rule_name: "lower", bank: bank.toLowerCase(), group_id: 1 });
    cfg.rules!.push({ type: "BANK", rule_name: "nowhere", bank: "NO SUCH BANK", group_id: 1 });
    const r = await loadRoutingConfig(db, cfg);
    expect(r).toEqual({
      ok: false,
      problems: [
        { path: "groups[1].members[2].gateway_id", message: "gateway 9999 does not exist (see the gateways table)" },
        { path: "rules[2].bank", message: `bank "${bank.toLowerCase()}" is not in the BIN table; did you mean "${bank}"? (names match exactly)` },
        { path: "rules[3].bank", message: 'bank "NO SUCH BANK" is not in the BIN table' },
      ],
    });
    expect(await readRoutingConfig(db)).toEqual(before);
  });

  it("requires exactly one fallback and rejects JSON that does not parse", async () => {
    const none = good();
    none.groups[0]!.is_fallback = false;
    const r = await loadRoutingConfig(db, none);
    expect(r.ok ? [] : r.problems).toEqual([{ path: "groups", message: "exactly one group must have is_fallback: true; none has" }]);
    const text = await loadRoutingConfig(db, "{ groups: ");
    expect(text.ok ? [] : text.problems.map((p) => p.path)).toEqual(["(file)"]);
  });
});

describe("routing load: state", () => {
  it("keeps a group's rotation when its members are unchanged, restarts it (keeping the count) otherwise", async () => {
    expect((await loadRoutingConfig(db, good())).ok).toBe(true);
    await db.run("UPDATE routing_group_state SET total_calls = 7, position = 1 WHERE group_id = 1");
    await db.run("UPDATE routing_group_state SET total_calls = 4, credits = '[1,-1]' WHERE group_id = 2");
    const changed = good();
    changed.groups[1]!.members[1]!.active = false;
    const r = await loadRoutingConfig(db, changed);
    expect(r).toMatchObject({ ok: true, kept: [1], restarted: [2] });
    const states = await db.all("SELECT group_id, total_calls::INTEGER AS n, position, credits FROM routing_group_state ORDER BY group_id");
    expect(states).toEqual([
      { group_id: 1, n: 7, position: 1, credits: "[0,0]" },
      { group_id: 2, n: 4, position: 0, credits: "[0]" },
    ]);
  });

  it("round-trips: what show --json prints loads back unchanged", async () => {
    expect((await loadRoutingConfig(db, good())).ok).toBe(true);
    const { config } = await readRoutingConfig(db);
    expect(config.rules[0]?.created_at).toBe("2025-03-01T10:00:00.000Z");
    const again = await loadRoutingConfig(db, JSON.parse(JSON.stringify(config)));
    expect(again).toMatchObject({ ok: true, kept: [1, 2], restarted: [] });
    expect((await readRoutingConfig(db)).config).toEqual(config);
  });
});

describe("demo configuration", () => {
  it("uses real BINs and banks, all three methods, scopes 0, 1 and 2, 6-8 digit prefixes, one fallback; it loads", async () => {
    const cfg = RoutingConfigFileSchema.parse(await buildDemoRoutingConfig(db));
    expect(new Set(cfg.groups.map((g) => g.selection_method))).toEqual(new Set(["ROUND_ROBIN", "WEIGHTAGE", "RANDOM"]));
    expect(new Set(cfg.groups.map((g) => g.cycle_scope))).toEqual(new Set([0, 1, 2]));
    expect(cfg.groups.filter((g) => g.is_fallback)).toHaveLength(1);
    const binRules = cfg.rules.flatMap((r) => (r.type === "BIN" ? [r.bin_prefix] : []));
    expect(new Set(binRules.map((p) => p.length))).toEqual(new Set([6, 7, 8]));
    const known = new Set((await db.all<{ bin: string }>("SELECT bin FROM bins")).map((r) => r.bin));
    for (const p of binRules) expect(known.has(p.slice(0, 6))).toBe(true);
    expect(cfg.rules.filter((r) => r.type === "BANK").length).toBeGreaterThanOrEqual(2);
    await seedDemoRouting(db);
    expect((await readRoutingConfig(db)).config.groups).toHaveLength(cfg.groups.length);
  });

  it("docs/routing-demo.json is the demo configuration of the generator's reference data, and loads", async () => {
    const doc: unknown = JSON.parse(readFileSync("docs/routing-demo.json", "utf8"));
    expect(doc).toEqual(JSON.parse(JSON.stringify(await buildDemoRoutingConfig(db))));
    expect((await loadRoutingConfig(db, doc)).ok).toBe(true);
  });
});

describe("service:cli routing", () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "service/cli.ts", "routing", ...args], { encoding: "utf8" });

  it("load reports problems (exit 1), loads a good file, and show prints it; a busy database is refused", async () => {
    await loadRoutingConfig(db, good());
    db.close(); // the CLI needs the file to itself
    try {
      const badFile = join(dir, "bad.json");
      writeFileSync(badFile, JSON.stringify({ groups: [{ group_id: 1, group_name: "x", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 1, weight: 0 }] }] }));
      const bad = cli("load", "--db", dbPath, "--file", badFile);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain("2 problems; nothing was changed");
      expect(bad.stderr).toContain("groups[0].members[0].weight: weight must be ≥ 1");
      expect(bad.stderr).toContain("groups: exactly one group must have is_fallback: true");

      const goodFile = join(dir, "good.json");
      writeFileSync(goodFile, JSON.stringify(good()));
      const ok = cli("load", "--db", dbPath, "--file", goodFile);
      expect(ok.stderr).toBe("");
      expect(ok.status).toBe(0);
      expect(ok.stdout).toMatch(/Loaded 2 groups and 2 rules/);

      const show = cli("show", "--db", dbPath);
      expect(show.status).toBe(0);
      expect(show.stdout).toContain('1  "fallback"  [FALLBACK]  ROUND_ROBIN  scope 2 (both)');
      expect(show.stdout).toContain("BIN  4147201   -> group 2");
      const json = cli("show", "--db", dbPath, "--json");
      expect(RoutingConfigFileSchema.parse(JSON.parse(json.stdout)).groups).toHaveLength(2);

      expect(cli("load", "--db", dbPath).status).toBe(2); // --file missing: usage
    } finally {
      db = await Database.open(dbPath);
    }
    const busy = cli("show", "--db", dbPath);
    expect(busy.status).toBe(3);
    expect(busy.stderr).toMatch(/in use by another process/);
    expect(await formatRoutingShow(db)).toContain("Rules (BIN rules first");
  });
});
