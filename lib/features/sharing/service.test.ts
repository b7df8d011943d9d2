/**
 * Saved reports and share links over a real PGlite store, the real service and the real report
 * gateway: scope, expiry, revocation, rotation, passwords, throttling, snapshot vs live.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriptionsFollowingLink } from "@/lib/features/notifications/subscriptions";
import { startTestService, type TestService } from "@/service/testing/harness";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/session";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { shareLinksRepo, type Snapshot } from "@/lib/features/sharing/links-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { gatewayFor } from "@/service/testing/test-gateway";
import { addDays, todayIn } from "@/lib/contract/dates";
import { canEdit, canonicalParams, canView } from "@/lib/features/saved-reports";
import { createShareLink, rotateShareLink } from "./links";
import { checkSharePassword, reportQuery, resolveShare, runThroughGateway, SHARE_LIMITS } from "./service";
import { hashToken, signUnlock, unlockCookieName, verifyUnlock } from "./tokens";
import { renderSavedReport } from "./view";
import { sharedDashboardView, type SharedDashboard } from "./dashboard";
import { coverageDays, coverageRequest } from "@/lib/report/periods/coverage";

const SECRET = "share-test-secret-share-test-secret-0123456789";
let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let analyst: SessionUser;
let other: SessionUser;
let viewer: SessionUser;
let report: SavedReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sharing-"));
  store = await openTestPglite(dir, "sharing test");
  const users = usersRepo(store);
  const mk = async (email: string, role: "analyst" | "viewer") => {
    const u = await users.create({ email, role, passwordHash: await hashPassword("irrelevant-password") });
    return { id: u.id, email: u.email, role } as SessionUser;
  };
  analyst = await mk("a@test.local", "analyst");
  other = await mk("b@test.local", "analyst");
  viewer = await mk("v@test.local", "viewer");
  svc = await startTestService({ data: { days: 60, ordersPerDay: 15, seed: 4, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
  report = await savedReportsRepo(store).create({
    ownerId: analyst.id,
    name: "Gateways, last 7 days",
    page: "explore",
    params: "range=last7&by=date,gateway_id&m=attempts,approvals,revenue&f.sales_type=Rebills",
    sharedWithTeam: false,
  });
});

afterAll(async () => {
  await svc?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const noCookie = () => undefined;

describe("saved reports", () => {
  it("are edited by their owner and admins, seen by the team only when shared", async () => {
    expect(canEdit(analyst, report)).toBe(true);
    expect(canEdit(other, report)).toBe(false);
    expect(canEdit({ ...other, role: "admin" }, report)).toBe(true);
    expect(canView(viewer, report)).toBe(false);
    const shared = await savedReportsRepo(store).update(report.id, { sharedWithTeam: true });
    expect(canView(viewer, shared!)).toBe(true);
    expect(canEdit(viewer, shared!)).toBe(false);
    expect((await savedReportsRepo(store).listVisible(viewer)).map((r) => r.id)).toContain(report.id);
  });

  it("turn into the request their definition says, with presets resolved today", () => {
    const { op, query } = reportQuery(report, "UTC");
    expect(op).toBe("orders");
    expect(query.group_by).toEqual(["date", "gateway_id"]);
    expect(query.filters).toEqual({ sales_type: ["Rebills"] });
    expect(query.end_date).toBe(todayIn("UTC"));
    const switched = reportQuery(report, "UTC", "last30");
    expect(switched.query.group_by).toEqual(query.group_by);
    expect(switched.query.filters).toEqual(query.filters);
    expect(switched.query.start_date < query.start_date).toBe(true);
  });
});

describe("share links", () => {
  it("carry 256-bit tokens stored only as hashes, and resolve to their own report only", async () => {
    const { token, link } = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", allowedPresets: ["last30"] });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await store.query<{ token_hash: string }>("SELECT token_hash FROM share_links WHERE id = $1", [link.id]);
    expect(rows[0]?.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    const r = await resolveShare(store, token, "198.51.100.1", SECRET, noCookie);
    expect(r.kind).toBe("ok");
    if (r.kind === "ok") expect(r.report.id).toBe(report.id);
  });

  it("reject expiry outside 1..365 days and presets a snapshot cannot honour", async () => {
    await expect(createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", expiresInDays: 366 })).rejects.toThrow(/1 to 365/);
    await expect(createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", expiresInDays: 0 })).rejects.toThrow(/1 to 365/);
    await expect(createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", allowedPresets: ["forever"] })).rejects.toThrow(/unknown preset/);
    await expect(createShareLink(store, gateway, "UTC", analyst, report, { mode: "snapshot", allowedPresets: ["last7"] })).rejects.toThrow(/frozen/);
  });

  it("keep a label and the token's tail, expire after the hours asked, and show a rotated token's new tail", async () => {
    const before = Date.now();
    const { token, link } = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", label: "  For the bank  ", expiresInHours: 6 });
    expect(link).toMatchObject({ label: "For the bank", tokenTail: token.slice(-6) });
    const hoursLeft = (Date.parse(link.expiresAt) - before) / 3_600_000;
    expect(hoursLeft).toBeGreaterThanOrEqual(6);
    expect(hoursLeft).toBeLessThan(6.1);
    await expect(createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", expiresInHours: 365 * 24 + 1 })).rejects.toThrow(/1 to 8760/);
    await expect(createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", expiresInHours: 2, expiresInDays: 1 })).rejects.toThrow(/not both/);
    const rotated = await rotateShareLink(store, analyst, report.id, link.id, "http://localhost", subscriptionsFollowingLink(SECRET));
    expect(rotated.link.tokenTail).toBe(rotated.token.slice(-6));
    expect(rotated.link.label).toBe("For the bank");
  });

  it("stop working when expired, revoked or rotated", async () => {
    const links = shareLinksRepo(store);
    const a = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live" });
    await store.query("UPDATE share_links SET expires_at = now() - interval '1 second' WHERE id = $1", [a.link.id]);
    expect((await resolveShare(store, a.token, "198.51.100.2", SECRET, noCookie)).kind).toBe("expired");

    const b = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live" });
    await links.revoke(b.link.id);
    expect((await resolveShare(store, b.token, "198.51.100.2", SECRET, noCookie)).kind).toBe("revoked");

    const c = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live" });
    await links.rotate(c.link.id, hashToken("n".repeat(43)));
    expect((await resolveShare(store, c.token, "198.51.100.2", SECRET, noCookie)).kind).toBe("unknown");
    expect((await resolveShare(store, "n".repeat(43), "198.51.100.2", SECRET, noCookie)).kind).toBe("ok");
  });

  it("ask for the password, accept the signed cookie for that link only, and relock on rotation", async () => {
    const { token, link } = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", password: "correct horse battery" });
    const full = (await shareLinksRepo(store).get(link.id))!;
    expect(full.passwordHash).not.toContain("correct horse");
    expect((await resolveShare(store, token, "198.51.100.3", SECRET, noCookie)).kind).toBe("locked");
    expect(await checkSharePassword(store, full, "wrong", "198.51.100.3", SECRET)).toBe("wrong");
    expect(await checkSharePassword(store, full, "correct horse battery", "198.51.100.3", SECRET)).toBe("ok");
    const th = hashToken(token);
    const cookie = signUnlock(th, Date.now() + 60_000, SECRET);
    const jar = (name: string) => (name === unlockCookieName(th) ? cookie : undefined);
    expect((await resolveShare(store, token, "198.51.100.3", SECRET, (h) => jar(unlockCookieName(h)))).kind).toBe("ok");
    // Forged, expired, or another link's cookie does not open it.
    // (The signature's first character: its last one carries bits that base64url decoding ignores.)
    const [payload, sig] = cookie.split(".") as [string, string];
    expect(verifyUnlock(`${payload}.${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`, th, SECRET)).toBe(false);
    expect(verifyUnlock(signUnlock(th, Date.now() - 1, SECRET), th, SECRET)).toBe(false);
    expect(verifyUnlock(cookie, hashToken("x".repeat(43)), SECRET)).toBe(false);
  });

  it("throttle unknown tokens per address, while a real token opens from anywhere (no one's guesses close it)", async () => {
    const { token } = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live" });
    const address = "203.0.113.50";
    for (let i = 0; i < SHARE_LIMITS.failuresPerAddress; i++) {
      expect((await resolveShare(store, `${"z".repeat(42)}${i % 10}`, address, SECRET, noCookie)).kind).toBe("unknown");
    }
    expect((await resolveShare(store, "z".repeat(43), address, SECRET, noCookie)).kind).toBe("throttled");
    expect((await resolveShare(store, token, address, SECRET, noCookie)).kind).toBe("ok");
    expect((await resolveShare(store, token, "203.0.113.51", SECRET, noCookie)).kind).toBe("ok");
    // With no address (no trusted proxy) an unknown token is only unknown: there is no key to spend.
    for (let i = 0; i < SHARE_LIMITS.failuresPerAddress + 5; i++) expect((await resolveShare(store, `${"y".repeat(42)}${i % 10}`, null, SECRET, noCookie)).kind).toBe("unknown");
    expect((await resolveShare(store, token, null, SECRET, noCookie)).kind).toBe("ok");
  });

  it("stop serving a link once the user who made it is disabled, and serve it again once enabled", async () => {
    const users = usersRepo(store);
    const maker = await users.create({ email: `maker-${Date.now()}@example.com`, role: "analyst", passwordHash: "x" });
    const mine = await savedReportsRepo(store).create({ ownerId: maker.id, name: "Maker's", page: "explore", params: "range=last7&by=date&m=revenue", sharedWithTeam: false });
    const { token } = await createShareLink(store, gateway, "UTC", { id: maker.id, email: maker.email, role: "analyst" }, mine, { mode: "live" });
    expect((await resolveShare(store, token, "198.51.100.9", SECRET, noCookie)).kind).toBe("ok");
    await users.disable(maker.email);
    expect((await resolveShare(store, token, "198.51.100.9", SECRET, noCookie)).kind).toBe("revoked");
    await users.enable(maker.email);
    expect((await resolveShare(store, token, "198.51.100.9", SECRET, noCookie)).kind).toBe("ok");
  });

  it("check at most the limit when wrong passwords or tokens arrive all at once, and cap failures per link", async () => {
    const { link } = await createShareLink(store, gateway, "UTC", analyst, report, { mode: "live", password: "correct horse battery" });
    const full = (await shareLinksRepo(store).get(link.id))!;
    const answers = await Promise.all(Array.from({ length: 50 }, () => checkSharePassword(store, full, "wrong guess", "203.0.113.60", SECRET)));
    expect(answers.filter((a) => a === "wrong").length).toBeLessThanOrEqual(SHARE_LIMITS.failuresPerAddress);
    expect(answers.filter((a) => a === "throttled").length).toBeGreaterThanOrEqual(50 - SHARE_LIMITS.failuresPerAddress);
    const lookups = await Promise.all(Array.from({ length: 50 }, (_, i) => resolveShare(store, `${"q".repeat(41)}${String(i).padStart(2, "0")}`, "203.0.113.61", SECRET, noCookie)));
    expect(lookups.filter((l) => l.kind === "unknown").length).toBeLessThanOrEqual(SHARE_LIMITS.failuresPerAddress);
    // From many addresses, the link itself stops checking passwords past its own cap.
    let checked = 0;
    for (let i = 0; i < SHARE_LIMITS.failuresPerLink + 5; i++) {
      if ((await checkSharePassword(store, full, "wrong guess", `198.18.${i >> 8}.${i & 255}`, SECRET)) === "wrong") checked++;
    }
    expect(checked).toBe(SHARE_LIMITS.failuresPerLink - answers.filter((a) => a === "wrong").length);
    expect(await checkSharePassword(store, full, "correct horse battery", "198.19.0.1", SECRET)).toBe("throttled");
  });

  it("freeze a snapshot that costs no upstream call to view, while a live link re-runs through the cache", async () => {
    const fresh = await savedReportsRepo(store).create({
      ownerId: analyst.id,
      name: "Snapshot test",
      page: "explore",
      params: "range=last30&by=gateway_id&m=revenue",
      sharedWithTeam: false,
    });
    const before = gateway.client.reportCalls;
    const snap = await createShareLink(store, gateway, "UTC", analyst, fresh, { mode: "snapshot" });
    expect(gateway.client.reportCalls).toBe(before + 1);
    expect(snap.link.snapshot?.data.length).toBeGreaterThan(0);
    const { op, query } = reportQuery(fresh, "UTC");
    // Viewing the snapshot reads the stored rows: no call.
    const stored = (await shareLinksRepo(store).get(snap.link.id))!.snapshot!;
    const compared = await runThroughGateway(gateway, op, query, 10_000, analyst.id);
    expect("done" in compared && compared.done.data).toEqual(stored.data);
    expect(gateway.client.reportCalls).toBe(before + 1); // that comparison was a cache hit
    const live = await runThroughGateway(gateway, op, query, 10_000, analyst.id);
    expect("done" in live && live.done.source).toBe("cache");
  });

  it("carry a report's grain and comparison: its request, its compared days, and a snapshot that freezes both", async () => {
    const compared = await savedReportsRepo(store).create({
      ownerId: analyst.id,
      name: "Weekly against the previous period",
      page: "explore",
      params: "range=last7&by=date&grain=week&cmp=prev&m=revenue,attempts",
      sharedWithTeam: false,
    });
    const { query, comparison } = reportQuery(compared, "UTC");
    const today = todayIn("UTC");
    expect(query).toMatchObject({ start_date: addDays(today, -6), end_date: today, group_by: ["date"] });
    // The same request over the 7 days before: one more answer.
    expect(comparison).toEqual({ ...query, start_date: addDays(today, -13), end_date: addDays(today, -7) });
    const before = gateway.client.reportCalls;
    const snap = await createShareLink(store, gateway, "UTC", analyst, compared, { mode: "snapshot" });
    expect(gateway.client.reportCalls - before).toBeLessThanOrEqual(2);
    const stored = (await shareLinksRepo(store).get(snap.link.id))!.snapshot!;
    expect(stored.comparison).toMatchObject({ start_date: comparison!.start_date, end_date: comparison!.end_date });
    const direct = await runThroughGateway(gateway, "orders", comparison!, 10_000, analyst.id);
    expect("done" in direct && direct.done.data).toEqual(stored.comparison!.data);
    // A report without a comparison asks for none.
    expect(reportQuery(report, "UTC").comparison).toBeNull();
  });

  it("freeze a comparison's coverage with the snapshot: opened later, it says the days the compared answer covered when it was taken", async () => {
    // 40 days by gateway against the 40 before them, of which the data (60 days) holds the last 20.
    const today = todayIn("UTC");
    const byGateway = await savedReportsRepo(store).create({
      ownerId: analyst.id,
      name: "Gateways against the period before",
      page: "explore",
      params: `range=${addDays(today, -39)}..${today}&by=gateway_id&cmp=prev&m=revenue,attempts`,
      sharedWithTeam: false,
    });
    const { op, comparison } = reportQuery(byGateway, "UTC");
    expect(comparison).toMatchObject({ start_date: addDays(today, -79), end_date: addDays(today, -40) });
    // Not by date, so its own answer cannot say which compared days hold data: the coverage request can.
    const coverage = coverageRequest(op, comparison!);
    expect(coverage).not.toBeNull();
    const deps = { db: store, gateway, owner: analyst.id, waitMs: 10_000, timeZone: "UTC" };
    const live = await renderSavedReport(deps, byGateway, { allowedPresets: [], preset: null, snapshot: null });
    expect(live.kind).toBe("ok");
    const liveCoverage = await runThroughGateway(gateway, op, coverage!, 10_000, analyst.id);
    const covered = "done" in liveCoverage ? coverageDays(liveCoverage.done.data, { start: comparison!.start_date, end: comparison!.end_date }) : [];
    expect(covered.length).toBeGreaterThan(0);
    expect(covered.length).toBeLessThan(40);

    const snap = await createShareLink(store, gateway, "UTC", analyst, byGateway, { mode: "snapshot" });
    const stored = (await shareLinksRepo(store).get(snap.link.id))!.snapshot!;
    expect(stored.comparison?.data_days).toEqual(covered);
    const periods = live.kind === "ok" ? live.periods : null;
    expect(periods).toContain(`${covered.length} of 40`);

    // Opened later, by another process whose cache holds nothing: drawn from what was frozen, with no
    // call, and saying the same coverage.
    const before = gateway.client.reportCalls;
    const elsewhere = gatewayFor(svc);
    const later = await renderSavedReport({ ...deps, gateway: elsewhere }, byGateway, { allowedPresets: [], preset: null, snapshot: { ...stored } });
    expect(gateway.client.reportCalls).toBe(before);
    expect(elsewhere.client.reportCalls).toBe(0);
    expect(later.kind === "ok" && later.mode).toBe("snapshot");
    expect(later.kind === "ok" ? later.periods : null).toBe(periods);
    const moved = await renderSavedReport({ ...deps, gateway: elsewhere }, byGateway, {
      allowedPresets: [],
      preset: null,
      snapshot: { ...stored, comparison: { ...stored.comparison!, data_days: covered.slice(0, 1) } },
    });
    // The coverage shown is the one the snapshot holds, not what a request would say now.
    expect(moved.kind === "ok" ? moved.periods : null).toContain("1 of 40");
  });

  it("freeze a dashboard's comparison coverage with its snapshot: opened later by another process, its tiles say what they said when it was taken", async () => {
    const today = todayIn("UTC");
    // Its range's 40 days against the 40 before them, of which the data (60 days) holds the last 20:
    // a KPI (its coverage read from its own answer by date) and a table by gateway (from a coverage request).
    const tiles = ["kpi.1|op=orders&range=last30&by=date&m=revenue|Revenue", "table.2|op=orders&range=last30&by=gateway_id&m=revenue,attempts|By gateway"];
    const dash = await savedReportsRepo(store).create({
      ownerId: analyst.id,
      name: "Dashboard against the period before",
      page: "dashboard",
      params: `range=${addDays(today, -39)}..${today}&cmp=prev&${tiles.map((t) => `t=${encodeURIComponent(t)}`).join("&")}`,
      sharedWithTeam: false,
    });
    const view = (g: ReportGateway, snapshot: Snapshot | null) =>
      sharedDashboardView(g, dash, { owner: analyst.id, sharedBy: analyst.email, timeZone: "UTC", preset: null, allowed: [], snapshot, waitMs: 10_000 });
    const live = await view(gateway, null);
    expect(live.answer.tiles.map((t) => t.outcome.status)).toEqual(["done", "done"]);
    const words = (v: SharedDashboard) => JSON.stringify(v.answer.tiles.map((t) => (t.outcome.status === "done" ? t.outcome.model : t.outcome)));
    expect(words(live)).toMatch(/data on \d+ of 40 days/);

    const snap = await createShareLink(store, gateway, "UTC", analyst, dash, { mode: "snapshot" });
    const stored = (await shareLinksRepo(store).get(snap.link.id))!.snapshot!;
    const elsewhere = gatewayFor(svc);
    const later = await view(elsewhere, stored);
    expect(later.mode).toBe("snapshot");
    expect(elsewhere.client.reportCalls).toBe(0);
    expect(later.answer.tiles.map((t) => t.outcome.status)).toEqual(["done", "done"]);
    expect(words(later)).toBe(words(live));
  });

  it("save and share the Monitor: no settings, and its links are always live", async () => {
    expect(canonicalParams("monitor", "", "UTC")).toBe("");
    expect(() => canonicalParams("monitor", "range=last7", "UTC")).toThrow(/no settings/);
    const monitor = await savedReportsRepo(store).create({ ownerId: analyst.id, name: "Monitor", page: "monitor", params: "", sharedWithTeam: true });
    await expect(createShareLink(store, gateway, "UTC", analyst, monitor, { mode: "snapshot" })).rejects.toThrow(/always live/);
    await expect(createShareLink(store, gateway, "UTC", analyst, monitor, { mode: "live", allowedPresets: ["last7"] })).rejects.toThrow(/always live/);
    const { token } = await createShareLink(store, gateway, "UTC", analyst, monitor, { mode: "live" });
    const r = await resolveShare(store, token, "203.0.113.9", "secret-secret-secret-secret-secret-!", noCookie);
    expect(r.kind === "ok" && r.report.page).toBe("monitor");
  });
});
