/**
 * Saved reports' PDFs before and after the renderer, over a real PGlite store and the real service
 * through the report gateway: the print view opens for the user its token names, with their rights
 * now, and nothing for a token of another report, another user's token for a report they may not
 * see, a disabled user, or a user who lost the right to see it; a range preset the page does not
 * offer is refused as the caller's mistake, naming it; the print's data is fetched as its person,
 * within their own most reports at once; the renderer's refusals answer as the
 * report's routes would, and none tells the caller where the browser is.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { usersRepo } from "@/lib/core/auth/users";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { makePrintToken } from "@/lib/core/pdf/print-token";
import { PdfError } from "@/lib/core/pdf/errors";
import { PDF_DEFAULTS, PdfRenderer } from "@/lib/core/pdf/renderer";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { loadReportPrintView, pdfApiError, savedReportPdf, type PrintViewDeps } from "./pdf";

const SECRET = "pdf-test-secret-pdf-test-secret-pdf-test-secret-0001";
const NOW = Date.parse("2026-11-02T08:00:00Z");

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;

async function person(name: string, role: SessionUser["role"]): Promise<SessionUser> {
  const u = await usersRepo(store).create({ email: `${name}-${Date.now()}@corp.example`, role, passwordHash: await hashPassword("irrelevant-password") });
  return { id: u.id, email: u.email, role };
}

const newReport = (owner: SessionUser, name: string, sharedWithTeam = false) =>
  savedReportsRepo(store).create({ ownerId: owner.id, name, page: "explore", params: "op=orders&range=last7&by=gateway_alias&m=attempts,revenue", sharedWithTeam });

const deps = (): PrintViewDeps => ({ db: store, gateway, secret: SECRET, timeZone: "UTC", now: NOW + 1_000 });
const tokenFor = (user: SessionUser, reportId: string) => makePrintToken({ userId: user.id, reportId, preset: null, queue: "user" }, SECRET, NOW);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sharing-pdf-"));
  store = await openTestPglite(dir, "sharing pdf test");
  svc = await startTestService({ data: { days: 14, ordersPerDay: 20, seed: 47, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
});

afterAll(async () => {
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("loadReportPrintView", () => {
  it("draws the report for the user its token names, with their rights now", async () => {
    const ann = await person("ann", "analyst");
    const report = await newReport(ann, "Ann's gateways");
    const view = await loadReportPrintView(report.id, tokenFor(ann, report.id), deps());
    expect(view?.kind).toBe("ok");
    expect(view?.kind === "ok" && view.title).toBe("Ann's gateways");
  });

  it("opens nothing with a token of another report, nor another user's token for a report they may not see", async () => {
    const ann = await person("ann2", "analyst");
    const bob = await person("bob", "analyst");
    const mine = await newReport(ann, "Ann's private");
    const bobs = await newReport(bob, "Bob's own");
    expect(await loadReportPrintView(mine.id, tokenFor(ann, bobs.id), deps())).toBeNull();
    expect(await loadReportPrintView(mine.id, tokenFor(bob, mine.id), deps())).toBeNull();
    expect(await loadReportPrintView(mine.id, null, deps())).toBeNull();
    // Expired: the token's lifetime is the render's, not longer.
    expect(await loadReportPrintView(mine.id, tokenFor(ann, mine.id), { ...deps(), now: NOW + 60 * 60_000 })).toBeNull();
  });

  it("opens nothing for a user disabled since the token was made", async () => {
    const cat = await person("cat", "analyst");
    const report = await newReport(cat, "Cat's report");
    const token = tokenFor(cat, report.id);
    expect((await loadReportPrintView(report.id, token, deps()))?.kind).toBe("ok");
    await usersRepo(store).disable(cat.email);
    expect(await loadReportPrintView(report.id, token, deps())).toBeNull();
  });

  it("opens nothing for a user who lost the right to see the report since the token was made", async () => {
    const dee = await person("dee", "analyst");
    const vic = await person("vic", "viewer");
    const report = await newReport(dee, "Dee's team report", true);
    const token = tokenFor(vic, report.id);
    // While the report is the team's, the viewer's token opens it.
    expect((await loadReportPrintView(report.id, token, deps()))?.kind).toBe("ok");
    await savedReportsRepo(store).update(report.id, { sharedWithTeam: false });
    expect(await loadReportPrintView(report.id, token, deps())).toBeNull();
    // An admin who is made an analyst loses the reports of others the same way.
    const ada = await person("ada", "admin");
    const adminToken = tokenFor(ada, report.id);
    await usersRepo(store).setRole(ada.id, "analyst");
    expect(await loadReportPrintView(report.id, adminToken, deps())).toBeNull();
    // Deleted: nothing for anyone.
    const ownerToken = tokenFor(dee, report.id);
    await savedReportsRepo(store).remove(report.id);
    expect(await loadReportPrintView(report.id, ownerToken, deps())).toBeNull();
  });
});

describe("a PDF's data counts against its person's own budget", () => {
  it("a person at their most reports waiting gets no print of another until one ends; the budget is theirs, not the print's", async () => {
    // One report at a time a person, two calls a minute: the second waits for the window.
    const tight = gatewayFor(svc, { maxJobsPerOwner: 1, reportRateLimit: 2, rateWindowSeconds: 60 });
    const bea = await person("bea", "analyst");
    const first = tight.submit("orders", { start_date: "2026-10-01", end_date: "2026-10-01", group_by: ["date"], metrics: ["attempts"] }, bea.id);
    if ("job" in first) await tight.wait(first.job.id);
    // Two 100-day pieces: the first takes the window's last call, the second waits in line.
    const waiting = tight.submit("orders", { start_date: "2026-01-01", end_date: "2026-05-01", group_by: ["date"], metrics: ["attempts"] }, bea.id);
    if (!("job" in waiting)) throw new Error("the long report was answered at once");
    const report = await newReport(bea, "Bea's gateways");
    const printing = loadReportPrintView(report.id, tokenFor(bea, report.id), { ...deps(), gateway: tight });
    await expect(printing).rejects.toMatchObject({ status: 429, message: expect.stringMatching(/^You already have 1 reports waiting or running, the most one person may have at once \(1\)/) });
    tight.cancel(waiting.job.id, bea.id);
  });
});

describe("savedReportPdf's refusals", () => {
  // A renderer with no browser: any request that reached it would be refused as "no-browser".
  const renderer = new PdfRenderer({ ...PDF_DEFAULTS, executablePath: "/nonexistent/chromium" }, { log: () => undefined });

  it("refuses a preset the page does not offer with 400 naming it, before anything is rendered", async () => {
    const eve = await person("eve", "analyst");
    const report = await newReport(eve, "Eve's report");
    const e = await savedReportPdf(eve, report.id, { preset: "bogus", queue: "user", db: store, renderer }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(400);
    expect((e as ApiError).message).toContain("“bogus”");
    expect((e as ApiError).message).toContain("last30");
    expect(renderer.stats()).toMatchObject({ running: 0, waiting: 0, peak: 0 });
  });

  it("answers the renderer's refusals as the report's routes would, and never says where the browser is", () => {
    const status = (e: PdfError) => (pdfApiError(e) as ApiError).status;
    expect(status(new PdfError("not-found", "The report is not there, or you may no longer see it."))).toBe(404);
    expect(status(new PdfError("forbidden", "You may no longer see this report."))).toBe(403);
    expect(status(new PdfError("busy", "busy", 60))).toBe(429);
    const noBrowser = pdfApiError(new PdfError("no-browser", "PDF downloads are not available on this server now.")) as ApiError;
    expect(noBrowser.status).toBe(503);
  });
});
