// The first-load budget reads what a build wrote: a small build's manifests and chunks, laid out as
// `next build` lays them out, give each page the gzipped size of the runtime's chunks and its own
// entries' (a chunk two pages share counts in both, a lazily loaded one in neither), and a page over
// the budget is named with its size.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { FIRST_LOAD_BUDGET_BYTES, firstLoadWeights, overBudget } from "./check-first-load";

const nextDir = mkdtempSync(path.join(tmpdir(), "check-first-load-"));
afterAll(() => rmSync(nextDir, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(nextDir, file)), { recursive: true });
  writeFileSync(path.join(nextDir, file), text);
}

/** A chunk of `n` characters that do not compress away, so that sizes differ by what a chunk holds. */
function chunk(name: string, n: number): number {
  let text = "";
  for (let i = 0; text.length < n; i++) text += `${((i * 2654435761) % 4294967296).toString(36)};`;
  write(`static/chunks/${name}`, text);
  return gzipSync(text, { level: 9 }).length;
}

function clientManifest(route: string, entries: Record<string, string[]>): void {
  const key = route === "/" ? "/page" : `${route}/page`;
  const body = { moduleLoading: { prefix: "" }, clientModules: {}, entryJSFiles: entries };
  write(
    `server/app${route === "/" ? "" : route}/page_client-reference-manifest.js`,
    `globalThis.__RSC_MANIFEST = globalThis.__RSC_MANIFEST || {};\nglobalThis.__RSC_MANIFEST[${JSON.stringify(key)}] = ${JSON.stringify(body)};\n`,
  );
}

const runtime = chunk("runtime.js", 4_000);
const layout = chunk("layout.js", 3_000);
const explore = chunk("explore.js", 6_000);
const share = chunk("share.js", 2_000);
chunk("lazy-results.js", 50_000);
chunk("polyfills.js", 9_000);
write(
  "build-manifest.json",
  JSON.stringify({ pages: { "/_app": [] }, polyfillFiles: ["static/chunks/polyfills.js"], rootMainFiles: ["static/chunks/runtime.js"] }),
);
clientManifest("/", { "[project]/app/layout": ["static/chunks/layout.js"], "[project]/app/page": ["static/chunks/layout.js"] });
clientManifest("/explore", { "[project]/app/layout": ["static/chunks/layout.js"], "[project]/app/explore/page": ["static/chunks/layout.js", "static/chunks/explore.js"] });
clientManifest("/share/[token]", { "[project]/app/layout": ["static/chunks/layout.js"], "[project]/app/share/[token]/page": ["static/chunks/share.js"] });

describe("check-first-load", () => {
  it("weighs each page's runtime, layout and page chunks once, gzipped, and not its lazy chunks or the polyfills", () => {
    expect(firstLoadWeights(nextDir)).toEqual([
      { page: "/", bytes: runtime + layout },
      { page: "/explore", bytes: runtime + layout + explore },
      { page: "/share/[token]", bytes: runtime + layout + share },
    ]);
  });

  it("names each page over the budget with its size, and passes the others", () => {
    const weights = firstLoadWeights(nextDir);
    const budget = runtime + layout + share;
    expect(overBudget(weights, budget)).toEqual([`/explore: ${((runtime + layout + explore) / 1024).toFixed(1)} KB gzipped, over the first-load budget of ${(budget / 1024).toFixed(1)} KB`]);
    expect(overBudget(weights)).toEqual([]);
    expect(FIRST_LOAD_BUDGET_BYTES).toBe(180 * 1024);
  });

  it("says a build is missing rather than passing", () => {
    expect(() => firstLoadWeights(path.join(nextDir, "nothing-here"))).toThrow(/next build/);
  });
});
