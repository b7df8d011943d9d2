import "server-only";
/**
 * PDF rendering with the system Chromium, driven by playwright-core: a page of the dashboard's own
 * print views is opened in a fresh browser context (no cookie or header but those the caller gives,
 * so the page reads with exactly the rights the caller proved), laid out in the light scheme for
 * print, and printed with a header (the question, the generation time and timezone, the snapshot
 * marker) and a footer (page numbers) on every page.
 *
 * Renders wait in a bounded line (./line.ts): per process, per owner, and for anonymous visitors
 * apart. Each render has `timeoutMs` from the moment it starts (its browser context is closed at the
 * limit), and a page that says its data is still being fetched is refused, never printed half-made.
 * The browser is launched at the first render and closed after `idleMs` with nothing to render.
 */
import { existsSync } from "node:fs";
import type { Browser, BrowserContext } from "playwright-core";
import { PdfError } from "./errors";
import { PdfLine, type LineLimits } from "./line";

/** What a print view says about itself, on its `[data-pdf-state]` element. */
export interface PrintFacts {
  state: "ready" | "pending" | "refused";
  title: string;
  /** The question in one line (range, filters, comparison), for the header. */
  subtitle: string;
  /** "Generated 29 Nov 2026, 07:30 (UTC)". */
  generated: string;
  /** "Data as of …" when the page prints a live answer, else empty. */
  asOf?: string;
  /** "Snapshot taken …" when the page is a snapshot, else empty. */
  snapshot: string;
  /** Seconds until a pending page's data should be there. */
  retryAfter: number;
  /** Why a refused page is refused, in words. */
  reason: string;
  /** A refusal the caller's route answers as its own: "not-found" (404), "forbidden" (403), else empty. */
  refusal?: string;
}

export interface PdfRequest {
  /** Whose budget the render counts against: a user's id, the background's, a share visitor's address. */
  owner: string;
  /** A visitor without an account (a share link's): bounded by `perVisitor` and `anonymousMax`, served after people. */
  anonymous?: boolean;
  /** The print view's absolute URL (the dashboard's own). */
  url: string;
  /** Headers the print view reads its rights from (a print token): sent with the page's own document request only. */
  headers?: Record<string, string>;
  /** Cookies the print view reads its rights from (a share's unlock cookie), for `url`'s origin. */
  cookies?: { name: string; value: string }[];
}

export interface PdfResult {
  pdf: Buffer;
  facts: PrintFacts;
}

export interface PdfLimits extends LineLimits {
  /** The Chromium binary. */
  executablePath: string;
  /** One render's limit, from its start to the last byte of PDF. */
  timeoutMs: number;
  /** Close the browser after this long with nothing to render. */
  idleMs: number;
}

export const PDF_DEFAULTS = { concurrency: 1, perOwner: 2, maxWaiting: 10, perVisitor: 1, anonymousMax: 3, timeoutMs: 120_000, idleMs: 60_000 } as const;

/** A4 landscape, 12 mm at the sides: 273 mm of content, laid out at this many CSS pixels. */
const CONTENT_WIDTH_PX = 1032;

/** What a caller is told when there is no browser: where and why stay in the server's log. */
const NO_BROWSER = "PDF downloads are not available on this server now: its browser could not be started. Its administrator finds why in the server's log.";

const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The header and footer Chromium repeats on every page (its templates fill pageNumber and totalPages). */
export function pageTemplates(f: Pick<PrintFacts, "title" | "subtitle" | "generated" | "snapshot" | "asOf">): { headerTemplate: string; footerTemplate: string } {
  // Templates have no page styles: every size is given here, and 0 would hide them.
  const box = "font-family: Arial, Helvetica, sans-serif; font-size: 8px; color: #1e293b; width: 100%; margin: 0 12mm; display: flex; justify-content: space-between; gap: 12px;";
  const right = [f.snapshot, f.asOf, f.generated].filter((x): x is string => Boolean(x)).map(escapeHtml).join(" · ");
  return {
    headerTemplate: `<div style="${box}"><span><b>${escapeHtml(f.title)}</b>${f.subtitle ? ` · ${escapeHtml(f.subtitle)}` : ""}</span><span>${right}</span></div>`,
    footerTemplate: `<div style="${box}"><span>${escapeHtml(f.title)}</span><span>Page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>`,
  };
}

/** Requests of a render, as the renderer met them: sent, and aborted for leaving the page's origin. */
export interface RequestLog {
  aborted: string[];
}

/**
 * Every request the print view makes passes here: one to another origin than the page's is aborted
 * (the print view draws from its own server only, so anything else is a page led astray, and the
 * renderer runs inside the network), and the caller's headers (a print token) go with the page's own
 * document request alone, never with its scripts, images or fetches.
 */
async function guard(context: BrowserContext, req: PdfRequest, log?: RequestLog): Promise<void> {
  const origin = new URL(req.url).origin;
  await context.route(
    () => true,
    async (route, request) => {
      let theirs: string;
      try {
        theirs = new URL(request.url()).origin;
      } catch {
        theirs = "";
      }
      if (theirs !== origin) {
        log?.aborted.push(request.url());
        return route.abort("blockedbyclient");
      }
      let main = false;
      try {
        main = request.isNavigationRequest() && request.frame().parentFrame() === null;
      } catch {
        // A request of no frame (a worker's) is not the page's document.
      }
      if (main && req.headers) return route.continue({ headers: { ...request.headers(), ...req.headers } });
      return route.continue();
    },
  );
}

export class PdfRenderer {
  private browser: Promise<Browser> | null = null;
  private readonly line: PdfLine;
  private idleTimer: NodeJS.Timeout | null = null;

  private readonly requests: RequestLog | undefined;
  private readonly log: (entry: Record<string, string>) => void;

  /** `requests`: where a test reads what the guard aborted; `log`: the server's log (stderr as JSON unless given). */
  constructor(
    private readonly limits: PdfLimits,
    opts: { requests?: RequestLog; log?: (entry: Record<string, string>) => void } = {},
  ) {
    this.requests = opts.requests;
    this.log = opts.log ?? ((entry) => console.error(JSON.stringify(entry)));
    this.line = new PdfLine(limits, {
      onBusy: () => {
        if (this.idleTimer) clearTimeout(this.idleTimer);
        this.idleTimer = null;
      },
      onIdle: () => {
        this.idleTimer = setTimeout(() => void this.close(), this.limits.idleMs);
        this.idleTimer.unref();
      },
    });
  }

  /** Renders waiting or running now, and the most there have been at once. */
  stats(): ReturnType<PdfLine["stats"]> {
    return this.line.stats();
  }

  available(): boolean {
    return existsSync(this.limits.executablePath);
  }

  async render(req: PdfRequest): Promise<PdfResult> {
    if (!this.available()) {
      this.log({ level: "error", msg: "pdf: no Chromium", path: this.limits.executablePath, hint: "as root: apt-get install chromium-headless-shell, or set CHROMIUM_PATH" });
      throw new PdfError("no-browser", NO_BROWSER);
    }
    return this.line.run(req.owner, req.anonymous === true, () => this.renderNow(req));
  }

  /** Closes the browser (tests, benchmarks, shutdown). */
  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const b = this.browser;
    this.browser = null;
    if (b) await b.then((x) => x.close()).catch(() => undefined);
  }

  private async launch(): Promise<Browser> {
    if (!this.browser) {
      const { chromium } = await import("playwright-core");
      this.browser = chromium.launch({ executablePath: this.limits.executablePath, args: LAUNCH_ARGS, headless: true });
      this.browser.catch(() => (this.browser = null));
    }
    const b = await this.browser;
    if (!b.isConnected()) {
      this.browser = null;
      return this.launch();
    }
    return b;
  }

  private async renderNow(req: PdfRequest): Promise<PdfResult> {
    let browser: Browser;
    try {
      browser = await this.launch();
    } catch (e) {
      // The first line only: the rest is the browser's own log, which may quote its environment.
      this.log({ level: "error", msg: "pdf: Chromium could not be started", path: this.limits.executablePath, error: e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e) });
      throw new PdfError("no-browser", NO_BROWSER);
    }
    const context = await browser.newContext({
      viewport: { width: CONTENT_WIDTH_PX, height: 800 },
      colorScheme: "light",
      reducedMotion: "reduce",
      serviceWorkers: "block",
    });
    await guard(context, req, this.requests);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new PdfError("timeout", `The PDF was not made within ${Math.round(this.limits.timeoutMs / 1000)} s, the most one may take.`, 60));
        void context.close().catch(() => undefined);
      }, this.limits.timeoutMs);
    });
    try {
      return await Promise.race([limit, this.print(context, req)]);
    } finally {
      clearTimeout(timer);
      await context.close().catch(() => undefined);
    }
  }

  private async print(context: Awaited<ReturnType<Browser["newContext"]>>, req: PdfRequest): Promise<PdfResult> {
    if (req.cookies?.length) await context.addCookies(req.cookies.map((c) => ({ ...c, url: req.url })));
    const page = await context.newPage();
    // A fresh context keeps no theme choice, so the page follows the light scheme asked here.
    await page.emulateMedia({ media: "screen", colorScheme: "light" });
    // The document's status as it came: Chromium fails the navigation itself on a bodiless 4xx.
    let documentStatus = 0;
    page.on("response", (r) => {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) documentStatus = r.status();
    });
    let response: Awaited<ReturnType<typeof page.goto>> = null;
    try {
      response = await page.goto(req.url, { waitUntil: "load", timeout: this.limits.timeoutMs });
    } catch (e) {
      if (documentStatus !== 404 && documentStatus !== 403) throw e;
    }
    // A print view that answers as the report's routes would (the report deleted, or the rights to it
    // lost, since the render was asked) is said as that, not as a failure to print.
    const status = response?.status() ?? documentStatus;
    if (status === 404) throw new PdfError("not-found", "The report is not there, or you may no longer see it.");
    if (status === 403) throw new PdfError("forbidden", "You may no longer see this report.");
    const marker = page.locator("[data-pdf-state]").first();
    try {
      await marker.waitFor({ state: "attached", timeout: 5_000 });
    } catch {
      throw new PdfError("failed", `The print view answered ${response?.status() ?? "nothing"} and no page to print.`);
    }
    const facts = await marker.evaluate((el: Element) => {
      const d = (el as HTMLElement).dataset;
      return {
        state: d.pdfState ?? "",
        title: d.pdfTitle ?? "",
        subtitle: d.pdfSubtitle ?? "",
        generated: d.pdfGenerated ?? "",
        asOf: d.pdfAsOf ?? "",
        snapshot: d.pdfSnapshot ?? "",
        retryAfter: Number(d.pdfRetryAfter ?? "0"),
        reason: d.pdfReason ?? "",
        refusal: d.pdfRefusal ?? "",
      };
    });
    if (facts.state === "pending") throw new PdfError("pending", `${facts.reason || "The data is still being fetched."} Try again in ${facts.retryAfter || 10} s.`, facts.retryAfter || 10);
    if (facts.state !== "ready") {
      const kind = facts.refusal === "not-found" || facts.refusal === "forbidden" ? facts.refusal : "refused";
      throw new PdfError(kind, facts.reason || "This page cannot be printed.");
    }
    // Charts draw after hydration, once their code has come and they have measured their box, and
    // fonts load late: print once the page is quiet and every chart says it is drawn.
    await page.waitForLoadState("networkidle");
    await page.waitForFunction(() => [...document.querySelectorAll("[data-pdf-chart]")].every((el) => el.getAttribute("data-pdf-chart") === "drawn"), undefined, { timeout: this.limits.timeoutMs });
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    await page.emulateMedia({ media: "print", colorScheme: "light" });
    const pdf = await page.pdf({
      format: "A4",
      landscape: true,
      printBackground: true,
      displayHeaderFooter: true,
      ...pageTemplates(facts),
      margin: { top: "16mm", bottom: "14mm", left: "12mm", right: "12mm" },
    });
    return { pdf, facts: { ...facts, state: "ready" } };
  }
}
