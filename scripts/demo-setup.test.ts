// The demo's setup on a real DuckDB file with generated data: its API clients (one for manual checks
// apart from the dashboard's), the manual check it prints run as printed against a real service,
// the two-person rule on by default, and a routing history whose newest change "measured after" can
// measure.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
import { reportCalls, startTestService } from "../service/testing/harness";
import { DEMO_ROUTING_HISTORY, demoSafetyEnv, ensureDemoClients, manualCheckLines, seedDemoRoutingHistory, type DemoClients } from "./demo-setup";

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

describe("the demo's settings and its manual check", () => {
  it("runs the routing workspace with the two-person rule on and trusts no proxy, unless told otherwise", () => {
    expect(demoSafetyEnv({})).toEqual({ ROUTING_TWO_PERSON: "true", TRUSTED_PROXY_HOPS: "0" });
    expect(demoSafetyEnv({ ROUTING_TWO_PERSON: "false", TRUSTED_PROXY_HOPS: "1" })).toEqual({ ROUTING_TWO_PERSON: "false", TRUSTED_PROXY_HOPS: "1" });
  });

  it("prints shell lines that, run as printed, answer as the service does, as the client for manual checks", async () => {
    const svc = await startTestService({ data: { days: 40, ordersPerDay: 20, seed: 3, endDate: TODAY } });
    const work = mkdtempSync(join(tmpdir(), "manual-check-"));
    try {
      const manual = await svc.newClient("manual checks");
      mkdirSync(join(work, ".local"));
      writeFileSync(join(work, ".local/secrets.json"), JSON.stringify({ manualClient: { client_id: manual.client_id, client_secret: manual.client_secret } }));
      const lines = manualCheckLines(svc.url, manual.client_id, ".local/secrets.json", TODAY);
      expect(lines).not.toContain(svc.client.client_id);
      svc.logLines.length = 0;
      // Run asynchronously: the service answers from this process.
      const { stdout } = await promisify(execFile)("bash", ["-e", "-c", lines], { cwd: work, encoding: "utf8" });
      const out = JSON.parse(stdout) as { data: unknown[] };
      expect(reportCalls(svc)).toBe(1);
      // The service's own answer to the same question, as another client.
      const other = await svc.newClient("direct");
      const res = await fetch(`${svc.url}/api/data`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${other.token}`, "x-client-id": other.client_id, "x-client-secret": other.client_secret },
        body: JSON.stringify({ start_date: `${TODAY.slice(0, 8)}01`, end_date: TODAY, group_by: ["date"], metrics: ["attempts", "approvals", "revenue"] }),
      });
      const direct = (await res.json()) as { data: unknown[] };
      expect(out.data.length).toBeGreaterThan(0);
      expect(out.data).toEqual(direct.data);
    } finally {
      rmSync(work, { recursive: true, force: true });
      await svc.stop();
    }
  });
});
