import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, request as playwrightRequest, type Page } from "@playwright/test";
import { parseCsv } from "../../lib/core/testing/csv";
import { questionLines, readWorkbook, sheetAsCsvRows } from "../../lib/report/table/testing/xlsx";
import { e2eEnv } from "./env";

/** A POST straight to the service with the e2e API client's credentials. */
export async function serviceCall(path: string, body: object): Promise<{ data: Record<string, string | number | null>[] }> {
  const env = e2eEnv();
  const ctx = await playwrightRequest.newContext();
  const token = ((await (await ctx.post(`${env.serviceUrl}/api/auth/token`, { data: env.client })).json()) as { data: { access_token: string } }).data.access_token;
  const call = () =>
    ctx.post(`${env.serviceUrl}${path}`, {
      data: body,
      headers: { authorization: `Bearer ${token}`, "x-client-id": env.client.client_id, "x-client-secret": env.client.client_secret },
    });
  // The specs share the client's reporting quota with the dashboard under test: wait as told.
  let res = await call();
  for (let i = 0; i < 5 && res.status() === 429; i++) {
    await new Promise((r) => setTimeout(r, Number(res.headers()["retry-after"] ?? 1) * 1000));
    res = await call();
  }
  expect(res.status()).toBe(200);
  return (await res.json()) as { data: Record<string, string | number | null>[] };
}

/** RFC 4180 parse of a small CSV (the export), BOM stripped: the one lib/core/testing/csv.ts holds. */
export { parseCsv };

/** The export split into its meta lines, header, data rows and totals row. */
export async function downloadCsv(page: Page): Promise<{ meta: string[][]; header: string[]; rows: string[][]; totals: string[]; text: string }> {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  const text = readFileSync((await download.path())!, "utf8");
  const all = parseCsv(text);
  const blank = all.findIndex((r) => r.length === 0 || (r.length === 1 && r[0] === ""));
  const meta = all.slice(0, blank);
  const header = all[blank + 1]!;
  const body = all.slice(blank + 2).filter((r) => r.length > 1);
  return { meta, header, rows: body.slice(0, -1), totals: body.at(-1)!, text };
}

async function downloaded(page: Page, button: string): Promise<Buffer> {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: button, exact: true }).click()]);
  return readFileSync((await file.path())!);
}

/**
 * The page's "Download Excel" holds its "Download CSV": the CSV's lines as the first sheet (their
 * time of making aside), its table cell by cell.
 */
export async function expectWorkbookIsCsv(page: Page): Promise<void> {
  const csv = parseCsv((await downloaded(page, "Download CSV")).toString("utf8"));
  const book = await readWorkbook(await downloaded(page, "Download Excel"));
  const blank = csv.findIndex((r) => r.length === 1 && r[0] === "");
  // The same lines, but for when each file was made: two downloads, moments apart.
  const made = new Set(["Exported at", "Generated at"]);
  const lines = questionLines(book);
  expect(lines.map((l) => l[0])).toEqual(csv.slice(0, blank).map((l) => l[0]));
  expect(lines.filter((l) => !made.has(l[0]!))).toEqual(csv.slice(0, blank).filter((l) => !made.has(l[0]!)));
  const table = csv.slice(blank + 1).filter((r) => r.length > 1);
  expect(book.worksheets).toHaveLength(2);
  expect(sheetAsCsvRows(book.worksheets[1]!, table[0]!.length)).toEqual(table);
}

/**
 * The axe rules that can only report a minor or moderate violation. axe gives every node a rule
 * flags the rule's own impact, so these can never find a serious or critical one: running them would
 * cost time (region and hidden-content walk the whole page) for results the checks below drop. Read
 * from the axe-core that @axe-core/playwright injects, so a new version's rules are counted as theirs.
 */
const LOW_IMPACT_RULES: string[] = (() => {
  const require = createRequire(import.meta.url);
  const axeCore = require(require.resolve("axe-core", { paths: [dirname(require.resolve("@axe-core/playwright"))] })) as {
    _audit?: { rules?: { id: string; impact?: string }[] };
  };
  const rules = axeCore._audit?.rules;
  if (!rules?.length) throw new Error("axe-core no longer lists its rules in _audit.rules: find the rules' impact elsewhere, or run every rule");
  return rules.filter((r) => r.impact === "minor" || r.impact === "moderate").map((r) => r.id);
})();

/** Every serious or critical axe violation on the page (colour contrast is one), with up to five places of each. */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  // A page of one frame (every page but those showing a mail preview) is checked by axe.run in the
  // page itself. @axe-core/playwright's default mode runs axe in each frame and then merges the parts
  // in a blank page it opens for that, which took twice as long for the same results (Monitor 11.3 s
  // against 6.2 s, a dashboard 11.0 s against 5.3 s); a page with a frame keeps it, as only it reaches
  // into a frame of another origin (the sandboxed preview).
  const results = await new AxeBuilder({ page }).disableRules(LOW_IMPACT_RULES).setLegacyMode(page.frames().length === 1).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")} (${n.failureSummary?.split("\n").slice(1).join(" ").trim() ?? ""})`).join("; ")}`);
}

export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  expect(await seriousA11yViolations(page)).toEqual([]);
}

/** One element that sticks out past the viewport's right edge, for a failure message. */
export interface Overflowing {
  tag: string;
  testId: string | null;
  label: string | null;
  classes: string;
  width: number;
  right: number;
  path: string;
  text: string;
}

/**
 * The elements that make the page wider than the viewport: those whose box ends past its right edge
 * and that no ancestor clips (an `overflow-x: auto` box that scrolls its own table clips it; it does
 * not clip an absolutely placed descendant whose containing block is outside it). Only the outermost
 * of each is named: the one whose parent still fits (or is clipped).
 */
export async function overflowingElements(page: Page): Promise<{ scrollWidth: number; viewport: number; offenders: Overflowing[] }> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const style = (el: Element) => getComputedStyle(el);
    const makesContainingBlock = (s: CSSStyleDeclaration) =>
      s.position !== "static" || s.transform !== "none" || s.filter !== "none" || s.perspective !== "none" || /paint|layout|strict|content/.test(s.contain);
    /** True when an ancestor that clips horizontally (and contains it, as CSS decides containment) holds the element. */
    const clipped = (el: Element): boolean => {
      let position = style(el).position;
      if (position === "fixed") return true; // never widens the page
      let needContainingBlock = position === "absolute";
      for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
        const s = style(a);
        const isBlock = makesContainingBlock(s);
        if ((!needContainingBlock || isBlock) && s.overflowX !== "visible") return true;
        if (needContainingBlock && isBlock) {
          position = s.position;
          if (position === "fixed") return true;
          needContainingBlock = position === "absolute";
        }
      }
      return false;
    };
    const sticksOut = (el: Element) => {
      const r = el.getBoundingClientRect();
      return (r.width > 0 || r.height > 0) && r.right + window.scrollX > vw + 0.5 && !clipped(el);
    };
    const describe = (el: Element) => {
      const id = el.id ? `#${el.id}` : "";
      const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).slice(0, 3).join(".")}` : "";
      return `${el.tagName.toLowerCase()}${id}${cls}`;
    };
    const offenders: Overflowing[] = [];
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      if (!sticksOut(el)) continue;
      if (el.parentElement && el.parentElement !== document.body && sticksOut(el.parentElement)) continue;
      const r = el.getBoundingClientRect();
      const path: string[] = [];
      for (let a = el.parentElement, i = 0; a && a !== document.body && i < 4; a = a.parentElement, i++) path.unshift(describe(a));
      offenders.push({
        tag: el.tagName.toLowerCase(),
        testId: el.closest("[data-testid]")?.getAttribute("data-testid") ?? null,
        label: el.getAttribute("aria-label") ?? el.closest("[aria-label]")?.getAttribute("aria-label") ?? null,
        classes: typeof el.className === "string" ? el.className : (el.getAttribute("class") ?? ""),
        width: Math.round(r.width),
        right: Math.round(r.right + window.scrollX),
        path: path.join(" > "),
        text: (el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 60),
      });
    }
    return { scrollWidth: document.documentElement.scrollWidth, viewport: vw, offenders };
  });
}

/** Resolves after the browser has drawn two more frames: resize observers have run and what they set has been laid out. */
export async function settleLayout(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
}

/**
 * The page does not scroll sideways: everything fits the viewport's width, or scrolls inside a box
 * of its own. Checked again for a moment (a chart that follows its box re-renders after a resize);
 * a failure names the elements that stick out.
 */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const first = await page.evaluate(() => document.documentElement.scrollWidth);
  await settleLayout(page);
  let last = await overflowingElements(page);
  const deadline = Date.now() + 3_000;
  while (last.scrollWidth > last.viewport && Date.now() < deadline) {
    await page.waitForTimeout(100);
    await settleLayout(page);
    last = await overflowingElements(page);
  }
  const lines = last.offenders.map(
    (o) =>
      `  <${o.tag}> ${o.width}px wide, right edge at ${o.right}px; class="${o.classes.slice(0, 160)}"` +
      `${o.testId ? ` in [data-testid=${o.testId}]` : ""}${o.label ? ` in "${o.label}"` : ""}\n    under ${o.path}${o.text ? `\n    text: ${o.text}` : ""}`,
  );
  expect(
    last.scrollWidth,
    `${name}: the page is ${last.scrollWidth}px wide in a ${last.viewport}px viewport (it scrolls sideways; ${first}px before the layout settled). Sticking out:\n${lines.join("\n") || "  (no element found)"}`,
  ).toBeLessThanOrEqual(last.viewport);
}

/**
 * Desktop and phone screenshots of the current page, kept with the run's output. At the phone's
 * width the page must not scroll sideways.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: `test-results/screenshots/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await expectNoSidewaysScroll(page, `${name} at 390px`);
  } finally {
    await page.screenshot({ path: `test-results/screenshots/${name}-phone.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 360, height: 780 });
  try {
    await expectNoSidewaysScroll(page, `${name} at 360px`);
  } finally {
    await page.screenshot({ path: `test-results/screenshots/${name}-small-phone.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

export const cents = (v: string | number | null | undefined) => Math.round(Number(v ?? 0) * 100);
