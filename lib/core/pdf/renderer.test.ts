/**
 * The PDF renderer with the real Chromium against pages served on a real socket, its PDFs read back
 * with poppler: every page carries the header and its number, a 300-row table spans pages with its
 * header row on each and no row lost; a page that says its data is pending or refused is not
 * printed; renders run one at a time, an owner past their share and everyone past the line are
 * refused, and a render past its limit stops. Skipped without Chromium or poppler, saying which is missing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath } from "./chromium";
import { PdfError } from "./errors";
import { PDF_DEFAULTS, PdfRenderer, pageTemplates, type PdfLimits } from "./renderer";
import { havePoppler, pdfImages, pdfPages } from "./testing/poppler";

const CHROMIUM = chromiumPath();
const missing = [existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`, havePoppler() ? null : "no poppler-utils (pdftotext, pdftoppm)"].filter(Boolean);
const ready = missing.length === 0;
if (!ready) console.warn(`lib/core/pdf/renderer.test.ts: ${missing.join(", ")} (bash scripts/test-servers.sh installs them); the Chromium suite skipped`);

const facts = (state: string, extra = "") =>
  `data-pdf-state="${state}" data-pdf-title="Gateways &amp; BINs" data-pdf-subtitle="Last 7 days (UTC)" data-pdf-generated="Generated 2026-11-02 08:00:00 UTC" data-pdf-snapshot="" data-pdf-retry-after="7" data-pdf-reason="Not yet." ${extra}`;

const ROWS = 300;
const table = `<table><thead><tr><th>Row</th><th>Attempts</th></tr></thead><tbody>${Array.from({ length: ROWS }, (_, i) => `<tr><td>row-${String(i + 1).padStart(3, "0")}</td><td>${(i + 1) * 7}</td></tr>`).join("")}</tbody></table>`;

const PAGES: Record<string, string> = {
  "/ready": `<div ${facts("ready")}><h1>Gateways</h1>${table}</div>`,
  "/pending": `<div ${facts("pending")}>waiting</div>`,
  "/refused": `<div ${facts("refused")}>no</div>`,
  "/forbidden": `<div ${facts("refused", 'data-pdf-refusal="forbidden"')}>no</div>`,
  // A chart that never says it is drawn: the render waits for it until its limit.
  "/never": `<div ${facts("ready")}><div data-pdf-chart="loading"></div></div>`,
  "/echo": "",
  // A page that reaches out of its origin (an image and a fetch elsewhere) and in (an image of its own).
  "/astray": "",
  "/pixel.svg": "",
};

/** A server of another origin, counting what reaches it. */
let elsewhere: Server;
let elsewhereBase: string;
let elsewhereHits = 0;

let server: Server;
let base: string;
/** Page requests being answered at once, and the most there were. */
let open = 0;
let mostOpen = 0;
let hold: Promise<void> | null = null;
const seen: { header: string | undefined; cookie: string | undefined }[] = [];
/** Every request's path and query, in the order they came. */
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      asked.push(req.url ?? "");
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      seen.push({ header: req.headers["x-print-token"] as string | undefined, cookie: req.headers.cookie });
      if (hold) await hold;
      open -= 1;
      const body = PAGES[path];
      if (body === undefined) {
        res.writeHead(404).end();
        return;
      }
      if (path === "/pixel.svg") {
        res.writeHead(200, { "Content-Type": "image/svg+xml" }).end(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`);
        return;
      }
      if (path === "/astray") {
        const page = `<div ${facts("ready")}>astray<img src="/pixel.svg"><img src="${elsewhereBase}/image.png"><script>fetch("${elsewhereBase}/data").catch(() => undefined)</script></div>`;
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(`<!doctype html><html><body>${page}</body></html>`);
        return;
      }
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(`<!doctype html><html><body>${body || `<div ${facts("ready")}>echo</div>`}</body></html>`);
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  elsewhere = createServer((_req, res) => {
    elsewhereHits += 1;
    res.writeHead(200).end("x");
  });
  await new Promise<void>((r) => elsewhere.listen(0, "127.0.0.1", r));
  elsewhereBase = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await new Promise<void>((r) => elsewhere.close(() => r()));
});

const limits = (over: Partial<PdfLimits> = {}): PdfLimits => ({ ...PDF_DEFAULTS, executablePath: CHROMIUM, ...over });

describe("pageTemplates", () => {
  it("repeats the question, the generation time and the page number, escaped", () => {
    const t = pageTemplates({ title: "A <b> & C", subtitle: "Last 7 days", generated: "Generated now", snapshot: "Snapshot taken then" });
    expect(t.headerTemplate).toContain("A &lt;b&gt; &amp; C");
    expect(t.headerTemplate).toContain("Snapshot taken then · Generated now");
    // A live answer's fetch time beside the generation time, as the e-mail that carries the PDF says it.
    expect(pageTemplates({ title: "T", subtitle: "", generated: "Generated now", snapshot: "", asOf: "Data as of then" }).headerTemplate).toContain("Data as of then · Generated now");
    expect(t.footerTemplate).toContain('<span class="pageNumber"></span> of <span class="totalPages"></span>');
  });
});

describe.skipIf(!ready)("PdfRenderer with Chromium", () => {
  const renderer = new PdfRenderer(limits());
  afterAll(() => renderer.close());

  it("prints a 300-row table over several pages, each with the header, its number and the table's header row, no row lost", async () => {
    const { pdf, facts: f } = await renderer.render({ owner: "u1", url: `${base}/ready`, headers: { "x-print-token": "t-1" }, cookies: [{ name: "unlock", value: "c-1" }] });
    expect(f.title).toBe("Gateways & BINs");
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    const pages = pdfPages(pdf);
    expect(pages.length).toBeGreaterThan(2);
    pages.forEach((text, i) => {
      expect(text).toContain("Gateways & BINs");
      expect(text).toContain("Generated 2026-11-02 08:00:00 UTC");
      expect(text).toContain(`Page ${i + 1} of ${pages.length}`);
      expect(text).toMatch(/Row\s+Attempts/);
    });
    const rows = pages.join("\n").match(/row-\d{3}\s+\d+/g) ?? [];
    expect(rows).toHaveLength(ROWS);
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(Array.from({ length: ROWS }, (_, i) => `row-${String(i + 1).padStart(3, "0")}`));
    expect(rows.map((r) => Number(r.split(/\s+/)[1]))).toEqual(Array.from({ length: ROWS }, (_, i) => (i + 1) * 7));
    // Every page draws as an image, and none is blank.
    const images = pdfImages(pdf);
    expect(images).toHaveLength(pages.length);
    for (const img of images) expect(img.pixels.some((p) => p < 128)).toBe(true);
    // The page was asked with the caller's header and cookie, and nothing else of theirs.
    expect(seen.at(-1)).toEqual({ header: "t-1", cookie: "unlock=c-1" });
  });

  it("sends the caller's headers with the page's document only, and aborts every request off its origin", async () => {
    const log = { aborted: [] as string[] };
    const guarded = new PdfRenderer(limits(), { requests: log });
    try {
      const from = seen.length;
      const fromAsked = asked.length;
      const { pdf } = await guarded.render({ owner: "u1", url: `${base}/astray`, headers: { "x-print-token": "t-2" } });
      expect(pdfPages(pdf).join("\n")).toContain("astray");
      const mine = asked.slice(fromAsked).map((u, i) => ({ path: new URL(u, "http://x").pathname, header: seen[from + i]?.header }));
      expect(mine.find((r) => r.path === "/astray")?.header).toBe("t-2");
      // The page's own image came, without the token.
      expect(mine.filter((r) => r.path === "/pixel.svg").length).toBeGreaterThan(0);
      for (const r of mine.filter((x) => x.path !== "/astray")) expect(r.header, r.path).toBeUndefined();
      // Nothing reached the other origin: its image and its fetch were aborted.
      expect(elsewhereHits).toBe(0);
      expect(log.aborted.sort()).toEqual([`${elsewhereBase}/data`, `${elsewhereBase}/image.png`]);
    } finally {
      await guarded.close();
    }
  });

  it("does not print a page that says its data is still being fetched, nor one that is refused", async () => {
    const pending = await renderer.render({ owner: "u1", url: `${base}/pending` }).catch((e: unknown) => e);
    expect(pending).toBeInstanceOf(PdfError);
    expect((pending as PdfError).kind).toBe("pending");
    expect((pending as PdfError).retryAfter).toBe(7);
    const refused = await renderer.render({ owner: "u1", url: `${base}/refused` }).catch((e: unknown) => e);
    expect((refused as PdfError).kind).toBe("refused");
    expect((refused as PdfError).message).toBe("Not yet.");
    // A print view that answers 404 (the report deleted, or its rights lost, since the render was
    // asked) or says it is refused as forbidden: said as the report's routes say it, not as a failure.
    const gone = await renderer.render({ owner: "u1", url: `${base}/gone` }).catch((e: unknown) => e);
    expect((gone as PdfError).kind).toBe("not-found");
    const forbidden = await renderer.render({ owner: "u1", url: `${base}/forbidden` }).catch((e: unknown) => e);
    expect((forbidden as PdfError).kind).toBe("forbidden");
    expect((forbidden as PdfError).message).toBe("Not yet.");
  });

  it("renders one at a time, refuses an owner past their share and everyone past the line", async () => {
    const bounded = new PdfRenderer(limits({ perOwner: 1, maxWaiting: 2 }));
    let started: Promise<unknown>[] = [];
    try {
      mostOpen = 0;
      let release!: () => void;
      hold = new Promise<void>((r) => (release = r));
      const first = bounded.render({ owner: "a", url: `${base}/echo` });
      const second = bounded.render({ owner: "b", url: `${base}/echo` });
      started = [first, second];
      // The browser starts for the first render; then its page request waits, held.
      await expect.poll(() => open, { timeout: 60_000 }).toBe(1);
      expect(bounded.stats()).toMatchObject({ running: 1, waiting: 1 });
      const mine = await bounded.render({ owner: "a", url: `${base}/echo` }).catch((e: unknown) => e);
      expect((mine as PdfError).kind).toBe("owner-busy");
      const full = await bounded.render({ owner: "c", url: `${base}/echo` }).catch((e: unknown) => e);
      expect((full as PdfError).kind).toBe("busy");
      expect((full as PdfError).retryAfter).toBe(60);
      release();
      hold = null;
      await Promise.all([first, second]);
      expect(mostOpen).toBe(1);
      expect(bounded.stats()).toMatchObject({ running: 0, waiting: 0, peak: 2 });
      // Its share back, the owner renders again.
      await bounded.render({ owner: "a", url: `${base}/echo` });
    } finally {
      hold = null;
      await Promise.allSettled(started);
      await bounded.close();
    }
  });

  it("bounds anonymous visitors per address and together, and serves people's and scheduled renders before theirs", async () => {
    const bounded = new PdfRenderer(limits({ perOwner: 2, perVisitor: 1, anonymousMax: 2, maxWaiting: 4 }));
    let started: Promise<unknown>[] = [];
    try {
      let release!: () => void;
      hold = new Promise<void>((r) => (release = r));
      const from = asked.length;
      const first = bounded.render({ owner: "203.0.113.1", anonymous: true, url: `${base}/echo?who=v1` });
      started = [first];
      await expect.poll(() => open, { timeout: 60_000 }).toBe(1);
      // One visitor: one render at a time, however many links they hold.
      const again = await bounded.render({ owner: "203.0.113.1", anonymous: true, url: `${base}/echo?who=v1b` }).catch((e: unknown) => e);
      expect((again as PdfError).kind).toBe("owner-busy");
      const second = bounded.render({ owner: "203.0.113.2", anonymous: true, url: `${base}/echo?who=v2` });
      started.push(second);
      // Visitors together: no more than their bound, whatever their addresses.
      const third = await bounded.render({ owner: "203.0.113.3", anonymous: true, url: `${base}/echo?who=v3` }).catch((e: unknown) => e);
      expect((third as PdfError).kind).toBe("busy");
      expect(bounded.stats()).toMatchObject({ running: 1, waiting: 1, anonymous: 2 });
      // An address is not a user: a user whose id reads like one keeps their own budget.
      const person = bounded.render({ owner: "203.0.113.1", url: `${base}/echo?who=person` });
      const scheduled = bounded.render({ owner: "background", url: `${base}/echo?who=scheduled` });
      started.push(person, scheduled);
      expect(bounded.stats()).toMatchObject({ running: 1, waiting: 3, anonymous: 2 });
      const full = await bounded.render({ owner: "u9", url: `${base}/echo?who=u9` }).catch((e: unknown) => e);
      expect((full as PdfError).kind).toBe("busy");
      release();
      hold = null;
      await Promise.all(started);
      // The visitor who came second waited behind the person and the scheduled send who came after.
      const order = asked.slice(from).filter((u) => u.startsWith("/echo")).map((u) => new URL(u, "http://x").searchParams.get("who"));
      expect(order).toEqual(["v1", "person", "scheduled", "v2"]);
      expect(bounded.stats()).toMatchObject({ running: 0, waiting: 0, anonymous: 0 });
    } finally {
      hold = null;
      await Promise.allSettled(started);
      await bounded.close();
    }
  });

  it("stops a render at its limit and says so", async () => {
    const short = new PdfRenderer(limits({ timeoutMs: 3_000 }));
    try {
      const e = await short.render({ owner: "a", url: `${base}/never` }).catch((x: unknown) => x);
      expect((e as PdfError).kind).toBe("timeout");
      expect(short.stats().running).toBe(0);
    } finally {
      await short.close();
    }
  });
});

it("says there is no browser without telling the caller where it was looked for; the server's log says where", async () => {
  const logged: Record<string, string>[] = [];
  const none = new PdfRenderer(limits({ executablePath: "/nonexistent/chromium" }), { log: (entry) => logged.push(entry) });
  const e = await none.render({ owner: "a", url: "http://127.0.0.1:9/" }).catch((x: unknown) => x);
  expect((e as PdfError).kind).toBe("no-browser");
  expect((e as PdfError).message).not.toContain("/nonexistent");
  expect((e as PdfError).message).not.toContain("CHROMIUM_PATH");
  expect(logged).toEqual([expect.objectContaining({ level: "error", path: "/nonexistent/chromium" })]);
});
