// The demo's setup on a real DuckDB file with generated data: its API clients (one for manual checks
// apart from the dashboard's), and a routing history whose newest change "measured after" can measure.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTING_ADMIN_SCOPE } from "../lib/contract/bin-routing";
import { addDays } from "../lib/contract/dates";
import { planEffects } from "../lib/features/routing/effects";
import { Database } from "../service/db";
import { generate } from "../service/data/generator";
import { migrate } from "../service/data/schema";
import { selectVersions } from "../service/routing/versions";
import { DEMO_ROUTING_HISTORY, ensureDemoClients, seedDemoRoutingHistory, type DemoClients } from "./demo-setup";

const TODAY = "2026-11-29";
let dir: string;
let db: Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "demo-setup-"));
  db = await Database.open(join(dir, "service.duckdb"));
  await migrate(db);
  await generate(db, { days: 70, ordersPerDay: 40, seed: 5, endDate: TODAY });
});

afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the demo's API clients", () => {
  it("are three: the dashboard's, the routing workspace's (routing-admin) and one for manual checks, each created once", async () => {
    const secrets: DemoClients = {};
    expect(await ensureDemoClients(db, secrets)).toEqual(["client", "routingClient", "manualClient"]);
    const ids = [secrets.client!, secrets.routingClient!, secrets.manualClient!].map((c) => c.client_id);
    expect(new Set(ids).size).toBe(3);
    const rows = await db.all<{ client_id: string; name: string; scopes: string }>("SELECT client_id, name, scopes FROM api_clients WHERE active ORDER BY name");
    expect(rows.map((r) => [r.client_id, r.name, r.scopes])).toEqual([
      [secrets.client!.client_id, "demo dashboard", ""],
      [secrets.routingClient!.client_id, "demo dashboard routing", ROUTING_ADMIN_SCOPE],
      [secrets.manualClient!.client_id, "manual checks", ""],
    ]);
    // Known to the database: kept. A client the database no longer has active is made anew.
    expect(await ensureDemoClients(db, secrets)).toEqual([]);
    await db.run("UPDATE api_clients SET active = FALSE WHERE client_id = ?", [secrets.manualClient!.client_id]);
    const before = secrets.manualClient!.client_id;
    expect(await ensureDemoClients(db, secrets)).toEqual(["manualClient"]);
    expect(secrets.manualClient!.client_id).not.toBe(before);
  });
});

describe("the demo's routing history", () => {
  it("holds an older version before the demo configuration, so measured-after has full windows on the first day", async () => {
    expect(await seedDemoRoutingHistory(db, TODAY)).toEqual([1, 2]);
    const versions = await selectVersions(db);
    expect(versions.map((v) => [v.version, v.created_at.slice(0, 10)])).toEqual([
      [1, addDays(TODAY, -DEMO_ROUTING_HISTORY.olderDaysAgo)],
      [2, addDays(TODAY, -DEMO_ROUTING_HISTORY.currentDaysAgo)],
    ]);
    const plans = planEffects(versions, TODAY, "UTC");
    const newest = plans[0]!;
    expect(newest.version).toBe(2);
    expect(newest.affected.banks.length).toBeGreaterThan(0);
    expect(newest.after).toEqual({ start_date: addDays(TODAY, -20), end_date: addDays(TODAY, -7), days: 14 });
    expect(newest.queries.map((q) => q.kind)).toEqual(["BANK"]);
    // A database with a history keeps it: nothing is loaded again.
    expect(await seedDemoRoutingHistory(db, TODAY)).toEqual([]);
    expect(await selectVersions(db)).toHaveLength(2);
  });
});
