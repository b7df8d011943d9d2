// The routing evidence case on real DuckDB files: the same counts whatever the data set's seed (the
// ones docs/routing.md lists), added through the importer without touching a generated row, inside
// the evidence window, once only, and routed by the demo configuration to a group of its current MID.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../../lib/contract/dates";
import { Database } from "../db";
import { buildDemoRoutingConfig } from "../routing/demo";
import { generate } from "./generator";
import { importRoutingEvidenceCase, routingEvidenceCase, ROUTING_EVIDENCE_BANK, type RoutingEvidenceCase } from "./routing-evidence-case";
import { migrate } from "./schema";

const END = "2025-06-30";
let dir: string;
let a: Database;
let b: Database;

async function fresh(name: string, seed: number): Promise<Database> {
  const db = await Database.open(join(dir, name));
  await migrate(db);
  await generate(db, { days: 100, ordersPerDay: 8, seed, endDate: END });
  return db;
}

/** Row count and an MD5 over the rows a query selects, in key order. */
async function fingerprint(db: Database, sql: string): Promise<{ n: number; h: string }> {
  const [row] = await db.all<{ n: number; h: string }>(`SELECT count(*)::INTEGER AS n, md5(coalesce(string_agg(t::VARCHAR, '\n' ORDER BY t::VARCHAR), '')) AS h FROM (${sql}) t`);
  return row!;
}

const GENERATED = {
  attempts: "SELECT * FROM attempts WHERE bin NOT IN (SELECT bin FROM bins WHERE bank = 'ROUTING EVIDENCE CASE BANK (DEMO)')",
  customers: "SELECT * FROM customers WHERE customer_id IN (SELECT customer_id FROM attempts WHERE bin NOT IN (SELECT bin FROM bins WHERE bank = 'ROUTING EVIDENCE CASE BANK (DEMO)'))",
  chargebacks: "SELECT c.* FROM chargebacks c JOIN attempts USING (attempt_id) WHERE bin NOT IN (SELECT bin FROM bins WHERE bank = 'ROUTING EVIDENCE CASE BANK (DEMO)')",
  bins: "SELECT * FROM bins WHERE bank <> 'ROUTING EVIDENCE CASE BANK (DEMO)'",
};

let before: Record<keyof typeof GENERATED, { n: number; h: string }>;
let caseA: RoutingEvidenceCase;
let caseB: RoutingEvidenceCase;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evidence-case-"));
  a = await fresh("a.duckdb", 3);
  b = await fresh("b.duckdb", 99);
  expect(await routingEvidenceCase(a)).toBeNull();
  before = Object.fromEntries(await Promise.all(Object.entries(GENERATED).map(async ([k, sql]) => [k, await fingerprint(a, sql)] as const))) as typeof before;
  caseA = await importRoutingEvidenceCase(a);
  caseB = await importRoutingEvidenceCase(b);
});

afterAll(() => {
  a?.close();
  b?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("routing evidence case", () => {
  it("has the same BINs, MIDs and counts whatever the data set's seed: those docs/routing.md lists", () => {
    expect(caseB).toEqual(caseA);
    expect(caseA).toMatchObject({ better_bin: "499001", noise_bin: "499002", current_gateway_id: 1, better_gateway_id: 2, from: addDays(END, -85), to: addDays(END, -5) });
    expect(caseA.sides).toEqual([
      { bin: "499001", gateway_id: 1, attempts: 1600, approvals: 787, chargebacks: 2 },
      { bin: "499001", gateway_id: 2, attempts: 1800, approvals: 1050, chargebacks: 13 },
      { bin: "499002", gateway_id: 1, attempts: 1700, approvals: 933, chargebacks: 4 },
      { bin: "499002", gateway_id: 2, attempts: 1700, approvals: 953, chargebacks: 12 },
    ]);
  });

  it("adds only its own rows: every generated row as it was", async () => {
    for (const [k, sql] of Object.entries(GENERATED)) expect(await fingerprint(a, sql), k).toEqual(before[k as keyof typeof GENERATED]);
    const [n] = await a.all<{ bins: number; attempts: number; customers: number; chargebacks: number }>(
      `SELECT (SELECT count(*) FROM bins WHERE bank = ?)::INTEGER AS bins,
              (SELECT count(*) FROM attempts WHERE bin IN (?, ?))::INTEGER AS attempts,
              (SELECT count(*) FROM customers)::INTEGER AS customers,
              (SELECT count(*) FROM chargebacks c JOIN attempts USING (attempt_id) WHERE bin IN (?, ?))::INTEGER AS chargebacks`,
      [ROUTING_EVIDENCE_BANK, caseA.better_bin, caseA.noise_bin, caseA.better_bin, caseA.noise_bin],
    );
    const total = (k: "attempts" | "chargebacks") => caseA.sides.reduce((s, x) => s + x[k], 0);
    expect(n).toEqual({ bins: 2, attempts: total("attempts"), customers: before.customers.n + total("attempts"), chargebacks: total("chargebacks") });
  });

  it("lies inside the evidence window: single initial orders, chargebacks only on approvals, never before their attempt or after the data", async () => {
    const [r] = await a.all<{ first: string; last: string; not_single: number; bad_cb: number; last_cb: string }>(
      `SELECT min(attempt_date)::VARCHAR AS first, max(attempt_date)::VARCHAR AS last,
              count(*) FILTER (WHERE attempt_no <> 1 OR is_cascade OR billing_cycle <> 0 OR sales_type <> 'Initials')::INTEGER AS not_single,
              (SELECT count(*) FROM chargebacks c JOIN attempts x USING (attempt_id) WHERE x.bin IN (?, ?) AND (NOT x.approved OR c.cb_date < x.attempt_date OR c.cb_date > ?::DATE))::INTEGER AS bad_cb,
              (SELECT max(cb_date)::VARCHAR FROM chargebacks c JOIN attempts x USING (attempt_id) WHERE x.bin IN (?, ?)) AS last_cb
       FROM attempts WHERE bin IN (?, ?)`,
      [caseA.better_bin, caseA.noise_bin, END, caseA.better_bin, caseA.noise_bin, caseA.better_bin, caseA.noise_bin],
    );
    expect(r!.first >= caseA.from && r!.last <= caseA.to).toBe(true);
    expect(r!.first >= addDays(END, -89)).toBe(true);
    expect(r!.not_single).toBe(0);
    expect(r!.bad_cb).toBe(0);
    expect(r!.last_cb <= END).toBe(true);
  });

  it("is added once: importing again changes nothing", async () => {
    const count = async () => (await a.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM attempts"))[0]!.n;
    const n = await count();
    expect(await importRoutingEvidenceCase(a)).toEqual(caseA);
    expect(await count()).toBe(n);
  });

  it("is routed by the demo configuration to a group of its current MID; the other MID is active in the fallback", async () => {
    const config = await buildDemoRoutingConfig(a);
    const group = config.groups.find((g) => g.group_name === "Evidence case (one MID)");
    expect(group?.members).toEqual([{ gateway_id: caseA.current_gateway_id, weight: 1, active: true }]);
    for (const bin of [caseA.better_bin, caseA.noise_bin]) {
      const rules = (config.rules ?? []).filter((r) => r.type === "BIN" && r.bin_prefix === bin);
      expect(rules.map((r) => r.group_id)).toEqual([group!.group_id]);
    }
    const fallback = config.groups.find((g) => g.is_fallback);
    expect(fallback?.members).toContainEqual(expect.objectContaining({ gateway_id: caseA.better_gateway_id, active: true }));
  });
});
