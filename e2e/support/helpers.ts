import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, request as playwrightRequest, type Page } from "@playwright/test";
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

/** RFC 4180 parse of a small CSV (the export), BOM stripped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const s = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && s[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

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

export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
}

/** Desktop and phone screenshots of the current page, kept with the run's output. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: `test-results/screenshots/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `test-results/screenshots/${name}-phone.png`, fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
}

export const cents = (v: string | number | null | undefined) => Math.round(Number(v ?? 0) * 100);
