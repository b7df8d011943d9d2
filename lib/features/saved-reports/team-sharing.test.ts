/**
 * Sharing a saved report or dashboard with the whole team, over a real PGlite store: turning it on
 * (when saving or later) and off is one audit entry each, saying who, which report, whose and what
 * kind of page; a change that leaves the sharing as it was adds none.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { usersRepo } from "@/lib/core/auth/users";
import { newTile, serializeDashboard, starterDashboard } from "@/lib/report/state/dashboard";
import { auditRepo } from "@/lib/core/audit/store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { createSavedReport, updateSavedReport } from "./index";

const TZ = "UTC";
const EXPLORE = "op=orders&range=last7&by=gateway_alias&m=attempts,revenue";
const DASHBOARD = serializeDashboard({ ...starterDashboard(), tiles: [newTile("kpi")] });

let dir: string;
let store: Store;
let ann: SessionUser;
let admin: SessionUser;

const sharingEntries = async (reportId: string) => (await auditRepo(store).list({ actions: ["saved_report."], subject: reportId })).entries;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "team-sharing-"));
  store = await openTestPglite(dir, "team sharing test");
  for (const [name, role] of [["ann", "analyst"], ["admin", "admin"]] as const) {
    const u = await usersRepo(store).create({ email: `${name}@corp.example`, role, passwordHash: "x" });
    if (name === "ann") ann = { id: u.id, email: u.email, role };
    else admin = { id: u.id, email: u.email, role };
  }
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("sharing with the whole team", () => {
  it("is one audit entry when a report is saved shared: who, which report, whose, what page", async () => {
    const report = await createSavedReport(store, ann, { name: "Gateways for everyone", page: "explore", params: EXPLORE, shared_with_team: true }, TZ);
    const entries = await sharingEntries(report.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: "saved_report.shared",
      actorKind: "user",
      actorId: ann.id,
      actorEmail: ann.email,
      subjectKind: "saved_report",
      subjectId: report.id,
      subjectLabel: "Gateways for everyone",
      detail: { page: "explore", owner: ann.email },
    });
    // Saved for oneself: nothing shared, nothing recorded.
    const own = await createSavedReport(store, ann, { name: "Mine", page: "explore", params: EXPLORE }, TZ);
    expect(await sharingEntries(own.id)).toEqual([]);
  });

  it("is one entry each time a dashboard is shared or unshared later, by whoever changed it, and none for other changes", async () => {
    const dash = await createSavedReport(store, ann, { name: "Ann's board", page: "dashboard", params: DASHBOARD }, TZ);
    expect(dash.sharedWithTeam).toBe(false);
    await updateSavedReport(store, ann, dash.id, { name: "Ann's board, renamed" }, TZ);
    expect(await sharingEntries(dash.id)).toEqual([]);

    await updateSavedReport(store, admin, dash.id, { shared_with_team: true }, TZ);
    await updateSavedReport(store, ann, dash.id, { shared_with_team: true, name: "Ann's board, for the team" }, TZ); // already shared
    await updateSavedReport(store, ann, dash.id, { shared_with_team: false }, TZ);
    const entries = (await sharingEntries(dash.id)).reverse();
    expect(entries.map((e) => [e.action, e.actorEmail, e.detail.page, e.detail.owner])).toEqual([
      ["saved_report.shared", admin.email, "dashboard", ann.email],
      ["saved_report.unshared", ann.email, "dashboard", ann.email],
    ]);
  });

  it("records nothing when the change is refused", async () => {
    const report = await createSavedReport(store, ann, { name: "Refused", page: "explore", params: EXPLORE }, TZ);
    await expect(updateSavedReport(store, ann, report.id, { shared_with_team: true, params: "op=orders" }, TZ)).rejects.toThrow(/no range/);
    expect(await sharingEntries(report.id)).toEqual([]);
  });
});
