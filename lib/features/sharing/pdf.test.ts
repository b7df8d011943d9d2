/**
 * Saved reports' PDFs before the renderer, over a real PGlite store: a range preset the page does
 * not offer is refused as the caller's mistake, naming it; the renderer's refusals answer as the
 * report's routes would, and none tells the caller where the browser is.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { usersRepo } from "@/lib/core/auth/users";
import { ApiError } from "@/lib/contract/errors";
import { PDF_DEFAULTS, PdfError, PdfRenderer } from "@/lib/core/pdf/renderer";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { pdfApiError, savedReportPdf } from "./pdf";


let dir: string;
let store: Store;

async function person(name: string, role: SessionUser["role"]): Promise<SessionUser> {
  const u = await usersRepo(store).create({ email: `${name}-${Date.now()}@corp.example`, role, passwordHash: await hashPassword("irrelevant-password") });
  return { id: u.id, email: u.email, role };
}

const newReport = (owner: SessionUser, name: string, sharedWithTeam = false) =>
  savedReportsRepo(store).create({ ownerId: owner.id, name, page: "explore", params: "op=orders&range=last7&by=gateway_alias&m=attempts,revenue", sharedWithTeam });


beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sharing-pdf-"));
  store = await openTestPglite(dir, "sharing pdf test");
}, 120_000);

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
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
