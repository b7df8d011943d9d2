/**
 * Who may run which dashboard, over a real PGlite store and the real service: analysts any they
 * build, viewers only a saved one they may see, under other dates and filters but with its tiles;
 * a dashboard link the page could not apply exactly is refused with each problem named, and costs
 * no call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/session";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { createSavedReport } from "@/lib/features/saved-reports";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { runDashboardFor } from "./service";
import { newTile, serializeDashboard, starterDashboard, type DashboardState } from "@/lib/report/state/dashboard";

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let analyst: SessionUser;
let viewer: SessionUser;

const dashboard: DashboardState = { ...starterDashboard(), compare: { kind: "none" }, tiles: [newTile("kpi"), newTile("table")] };
const opts = { timeZone: "UTC", waitMs: 10_000 };

const calls = () => svc.logLines.filter((l) => /"path":"\/api\/data(\/cohort)?"/.test(l)).length;

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
  return e;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboards-"));
  store = await openTestPglite(dir, "dashboards test");
  const users = usersRepo(store);
  const mk = async (email: string, role: "analyst" | "viewer") => {
    const u = await users.create({ email, role, passwordHash: await hashPassword("irrelevant-password") });
    return { id: u.id, email: u.email, role } as SessionUser;
  };
  analyst = await mk("a@test.local", "analyst");
  viewer = await mk("v@test.local", "viewer");
  svc = await startTestService({ data: { days: 70, ordersPerDay: 15, seed: 3, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
});

afterAll(async () => {
  await svc?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("running a dashboard", () => {
  it("an analyst runs any dashboard they build", async () => {
    const answer = await runDashboardFor(store, gateway, analyst, { params: serializeDashboard(dashboard) }, opts);
    expect(answer.tiles.map((t) => t.outcome.status)).toEqual(["done", "done"]);
  });

  it("a viewer runs a saved dashboard they may see, under other dates, but not other tiles or an unsaved one", async () => {
    const saved = await createSavedReport(store, analyst, { name: "Team board", page: "dashboard", params: serializeDashboard(dashboard), shared_with_team: true }, "UTC");
    const otherDates = serializeDashboard({ ...dashboard, range: { preset: "last7" } });
    const answer = await runDashboardFor(store, gateway, viewer, { params: otherDates, id: saved.id }, opts);
    expect(answer.tiles.every((t) => t.outcome.status === "done")).toBe(true);

    const before = calls();
    const moreTiles = serializeDashboard({ ...dashboard, tiles: [...dashboard.tiles, newTile("chart")] });
    expect((await refusal(runDashboardFor(store, gateway, viewer, { params: moreTiles, id: saved.id }, opts))).status).toBe(403);
    expect((await refusal(runDashboardFor(store, gateway, viewer, { params: otherDates }, opts))).status).toBe(403);
    const mine = await createSavedReport(store, analyst, { name: "Mine", page: "dashboard", params: serializeDashboard(dashboard) }, "UTC");
    expect((await refusal(runDashboardFor(store, gateway, viewer, { params: otherDates, id: mine.id }, opts))).status).toBe(404);
    expect(calls()).toBe(before);
  });

  it("refuses a dashboard link it cannot apply exactly, naming each problem, at no cost", async () => {
    const before = calls();
    const e = await refusal(runDashboardFor(store, gateway, analyst, { params: new URLSearchParams([["range", "last30"], ["grain", "fortnight"], ["t", "kpi.9|op=orders&range=last30&m=revenue|"]]).toString() }, opts));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/fortnight/);
    expect(e.message).toMatch(/tile width/);
    expect(calls()).toBe(before);
  });

  it("saving a dashboard keeps its canonical form and refuses one without tiles", async () => {
    const saved = await createSavedReport(store, analyst, { name: "Canonical", page: "dashboard", params: `?${serializeDashboard(dashboard)}` }, "UTC");
    expect(saved.params).toBe(serializeDashboard(dashboard));
    const e = await refusal(createSavedReport(store, analyst, { name: "Empty", page: "dashboard", params: "range=last30" }, "UTC"));
    expect(e.message).toMatch(/at least one tile/);
  });
});
