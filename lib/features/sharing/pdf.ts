import "server-only";
/**
 * PDFs of saved reports, dashboards and share links: the print view of the page, drawn by the
 * dashboard itself and printed by its Chromium (lib/core/pdf/renderer.ts), one at a time per process.
 *
 * Rights: a saved report's PDF is made only for a user who may see it (checked here, and again by the
 * print view, which reads the user from a short-lived signed print token, never a session); its data
 * queues in that user's turn, under their own report budgets. A share's PDF goes through the share's
 * token and every check of the share page (expiry, revocation, password by the visitor's own unlock
 * cookie, the sharer's rights); its data queues in share visitors' turn. A share link offers its
 * downloads to every visitor who may open it, and its PDF follows the same rule. Its render is an
 * anonymous one, counted per visitor address and bounded apart from people's (renderer.ts), and its
 * print view opens only with a print token made here, so it is reached through the renderer alone.
 */
import { ApiError } from "@/lib/contract/errors";
import { getVisibleReport } from "@/lib/features/saved-reports/access";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { serverEnv } from "@/lib/core/env/env";
import { getStore } from "@/lib/core/store";
import type { Sql } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import { BACKGROUND_OWNER, type ReportGateway } from "@/lib/core/upstream/gateway";
import { getGateway } from "@/lib/core/upstream";
import { COHORT_PRESETS, EXPLORE_PRESETS } from "@/lib/report/state/range";
import { PdfError } from "@/lib/core/pdf/errors";
import { PDF_DEFAULTS, PdfRenderer, type PdfResult } from "@/lib/core/pdf/renderer";
import { makePrintToken, makeSharePrintToken, readPrintToken, readSharePrintToken, PRINT_TOKEN_HEADER, type PrintQueue } from "@/lib/core/pdf/print-token";
import { renderSavedReport, type SharedView } from "./view";
import { resolveShare } from "./service";
import { hashToken, unlockCookieName } from "./tokens";

/** How long a print view waits for its data (inside the render's own limit). */
const PRINT_WAIT_MS = 60_000;

let renderer: PdfRenderer | null = null;

/** This process's renderer: one render at a time, the limits of PDF_DEFAULTS, the time limit of PDF_TIMEOUT_SECONDS. */
export function pdfRenderer(): PdfRenderer {
  if (!renderer) {
    const env = serverEnv();
    renderer = new PdfRenderer({ ...PDF_DEFAULTS, executablePath: env.CHROMIUM_PATH, timeoutMs: env.PDF_TIMEOUT_SECONDS * 1000 });
  }
  return renderer;
}

const STATUS = { busy: 429, "owner-busy": 429, pending: 503, refused: 409, "not-found": 404, forbidden: 403, timeout: 503, "no-browser": 503, failed: 500 } as const satisfies Record<PdfError["kind"], number>;

/** The range presets a saved report's PDF may ask for (as its page offers them). */
const presetsOf = (page: string): readonly string[] => (page === "cohorts" || page === "dashboard" ? COHORT_PRESETS : EXPLORE_PRESETS);

/** A preset the page does not offer is the caller's mistake, said as one, never printed as the saved range. */
export function checkPreset(preset: string | null, allowed: readonly string[]): void {
  if (preset === null || allowed.includes(preset)) return;
  const offered = allowed.length > 0 ? `one of ${allowed.join(", ")}` : "this page offers none";
  throw new ApiError(400, `There is no range preset “${preset}” here: ${offered}.`, [{ path: "preset", message: `unknown preset “${preset}”` }]);
}

/** A renderer's refusal as the API answers it: the status, the reason in words, and when to ask again. */
export function pdfApiError(e: unknown): unknown {
  if (!(e instanceof PdfError)) return e;
  const headers: Record<string, string> = e.retryAfter === null ? {} : { "Retry-After": String(e.retryAfter) };
  return new ApiError(STATUS[e.kind], e.message, undefined, headers, e.retryAfter === null ? undefined : { retry_after: e.retryAfter });
}

/** A PDF as a download, never cached (it is one person's view of the data). */
export function pdfResponse(pdf: Buffer, fileName: string, extra: Record<string, string> = {}): Response {
  return new Response(new Uint8Array(pdf), {
    status: 200,
    headers: { "Content-Type": "application/pdf", "Content-Disposition": `attachment; filename="${fileName}"`, "Cache-Control": "no-store", ...extra },
  });
}

export const pdfFileName = (title: string) => `${title.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "report"}.pdf`;

/**
 * A saved report's (or dashboard's) PDF as `user` sees it: refused as missing when they may not see
 * it. `queue` "background" for a scheduled send, whose data waits behind people's.
 */
export async function savedReportPdf(
  user: SessionUser,
  reportId: string,
  opts: { preset: string | null; queue: PrintQueue; db?: Sql; baseUrl?: string; renderer?: PdfRenderer },
): Promise<PdfResult & { fileName: string }> {
  const report = await getVisibleReport(opts.db ?? (await getStore()), user, reportId);
  checkPreset(opts.preset, report.page === "monitor" ? [] : presetsOf(report.page));
  const env = serverEnv();
  const token = makePrintToken({ userId: user.id, reportId: report.id, preset: opts.preset, queue: opts.queue }, env.NEXTAUTH_SECRET, Date.now());
  const url = new URL(`/print/reports/${encodeURIComponent(report.id)}`, opts.baseUrl ?? env.NEXTAUTH_URL);
  const result = await (opts.renderer ?? pdfRenderer()).render({ owner: opts.queue === "background" ? BACKGROUND_OWNER : user.id, url: url.toString(), headers: { [PRINT_TOKEN_HEADER]: token } });
  return { ...result, fileName: pdfFileName(report.name) };
}

/** What a report's print view reads: the store, the gateway, the signing secret, the reporting timezone, the time. */
export interface PrintViewDeps {
  db: Sql;
  gateway: ReportGateway;
  secret: string;
  timeZone: string;
  now: number;
}

async function printViewDeps(): Promise<PrintViewDeps> {
  const env = serverEnv();
  return { db: await getStore(), gateway: getGateway(), secret: env.NEXTAUTH_SECRET, timeZone: env.REPORT_TIMEZONE, now: Date.now() };
}

/**
 * What a print token opens: the report drawn for the token's user with their rights now, or null
 * (answered as missing) when the token is not for this report, the user is gone or disabled, or they
 * may no longer see it.
 */
export async function loadReportPrintView(reportId: string, token: string | null, given?: PrintViewDeps): Promise<SharedView | null> {
  const deps = given ?? (await printViewDeps());
  const claim = readPrintToken(token, reportId, deps.secret, deps.now);
  if (!claim) return null;
  const db = deps.db;
  const u = await usersRepo(db).findById(claim.userId);
  if (!u || u.disabled) return null;
  let report;
  try {
    report = await getVisibleReport(db, { id: u.id, email: u.email, role: u.role }, reportId);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
  const allowed = presetsOf(report.page);
  return renderSavedReport(
    { db, gateway: deps.gateway, owner: claim.queue === "background" ? BACKGROUND_OWNER : u.id, waitMs: PRINT_WAIT_MS, timeZone: deps.timeZone, acceptStale: false },
    report,
    { allowedPresets: [...allowed], preset: claim.preset, snapshot: null },
  );
}

/** Whether a share's print view was asked by this server's renderer (a share print token for that link). */
export function sharePrintAllowed(shareToken: string, printToken: string | null): boolean {
  return readSharePrintToken(printToken, hashToken(shareToken), serverEnv().NEXTAUTH_SECRET, Date.now());
}

// Gone links answer as missing: the error envelope has no 410.
const SHARE_STATUS = { locked: 401, expired: 404, revoked: 404, paused: 403, unknown: 404, throttled: 429 } as const;
const SHARE_WORDS = { locked: "This report is protected: open the link and give its password first.", expired: "This link has expired.", revoked: "This link has been revoked.", paused: "This link is paused.", unknown: "No such link.", throttled: "Too many attempts. Try again in 15 minutes." } as const;

/**
 * A share link's PDF, for whoever holds the link (and, when it has a password, the unlock cookie
 * the share page gave them): refused as the share page refuses. Only the link's own unlock cookie
 * goes to the renderer.
 */
export async function sharePdf(
  token: string,
  opts: { preset: string | null; address: string | null; cookie: (name: string) => string | undefined },
): Promise<PdfResult & { fileName: string }> {
  const env = serverEnv();
  const db = await getStore();
  const r = await resolveShare(db, token, opts.address, env.NEXTAUTH_SECRET, (hash) => opts.cookie(unlockCookieName(hash)));
  if (r.kind !== "ok") throw new ApiError(SHARE_STATUS[r.kind], SHARE_WORDS[r.kind]);
  checkPreset(opts.preset, r.report.page === "monitor" ? [] : r.link.allowedPresets);
  const name = unlockCookieName(r.tokenHash);
  const unlock = opts.cookie(name);
  const url = new URL(`/print/share/${encodeURIComponent(token)}`, env.NEXTAUTH_URL);
  if (opts.preset) url.searchParams.set("preset", opts.preset);
  const result = await pdfRenderer().render({
    // Without a trusted address every visitor is one: the anonymous bound still holds them together.
    owner: opts.address ?? "unknown-address",
    anonymous: true,
    url: url.toString(),
    headers: { [PRINT_TOKEN_HEADER]: makeSharePrintToken(r.tokenHash, env.NEXTAUTH_SECRET, Date.now()) },
    cookies: unlock ? [{ name, value: unlock }] : [],
  });
  return { ...result, fileName: pdfFileName(r.report.name) };
}

export { PRINT_TOKEN_HEADER, PRINT_WAIT_MS };
