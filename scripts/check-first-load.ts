/**
 * The first-load budget, run by `npm test` right after `next build` (scripts/test-e2e.sh): each
 * page's first-load JavaScript, gzipped, must stay within FIRST_LOAD_BUDGET_BYTES. A page over it
 * fails the run, named with its size.
 *
 * A page's first load is read from the production build (`.next`), not from a browser: the
 * framework's runtime chunks every page loads (build-manifest.json, rootMainFiles) and the chunks of
 * the page's entries, its layouts' and its own (the page's client reference manifest,
 * server/app/<route>/page_client-reference-manifest.js, entryJSFiles). What a page loads later
 * (lazyPart, README "Lazy loading") is in neither. Each chunk is gzipped at level 9, as a server
 * would send it. The `nomodule` polyfills are not counted: browsers with JavaScript modules never
 * download them.
 *
 * `tsx scripts/check-first-load.ts [.next]` prints every page's size as a table (docs/benchmarks.md).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { z } from "zod";

/** ≤ 180 KB gzipped per page (README, "Lazy loading"). */
export const FIRST_LOAD_BUDGET_BYTES = 180 * 1024;

const BuildManifest = z.object({ rootMainFiles: z.array(z.string()) });
const ClientReferenceManifest = z.object({ entryJSFiles: z.record(z.string(), z.array(z.string())) });

export interface PageWeight {
  /** The page's route, as its URL is written: `/`, `/explore`, `/share/[token]`. */
  page: string;
  /** Its first-load JavaScript, gzipped bytes. */
  bytes: number;
}

/** The client reference manifests under server/app, one per page: `explore/page_client-reference-manifest.js`. */
function manifestFiles(appDir: string, under = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(appDir, under), { withFileTypes: true })) {
    const rel = path.join(under, entry.name);
    if (entry.isDirectory()) found.push(...manifestFiles(appDir, rel));
    else if (entry.name === "page_client-reference-manifest.js") found.push(rel);
  }
  return found;
}

/** The manifest's object: the file assigns it to `globalThis.__RSC_MANIFEST[<entry>]`. */
function readClientManifest(file: string): z.infer<typeof ClientReferenceManifest> {
  const sandbox: { globalThis?: unknown; __RSC_MANIFEST?: Record<string, unknown> } = {};
  sandbox.globalThis = sandbox;
  runInNewContext(readFileSync(file, "utf8"), sandbox, { filename: file, timeout: 5_000 });
  const entries = Object.values(sandbox.__RSC_MANIFEST ?? {});
  if (entries.length !== 1) throw new Error(`${file}: expected one page's manifest, found ${entries.length}`);
  return ClientReferenceManifest.parse(entries[0]);
}

/** Every page's first-load JavaScript in the build at `nextDir`, gzipped; pages sorted by route. */
export function firstLoadWeights(nextDir: string): PageWeight[] {
  const buildManifest = path.join(nextDir, "build-manifest.json");
  if (!existsSync(buildManifest)) throw new Error(`${buildManifest} not found: run \`next build\` first`);
  const { rootMainFiles } = BuildManifest.parse(JSON.parse(readFileSync(buildManifest, "utf8")));
  const gzipped = new Map<string, number>();
  const size = (chunk: string) => {
    const file = path.join(nextDir, chunk.replace(/^\/?_next\//, ""));
    let bytes = gzipped.get(file);
    if (bytes === undefined) {
      bytes = gzipSync(readFileSync(file), { level: 9 }).length;
      gzipped.set(file, bytes);
    }
    return bytes;
  };
  const appDir = path.join(nextDir, "server", "app");
  const pages = manifestFiles(appDir).map((rel) => {
    const route = path.dirname(rel).split(path.sep).join("/");
    const page = route === "." ? "/" : `/${route}`;
    const { entryJSFiles } = readClientManifest(path.join(appDir, rel));
    const chunks = new Set([...rootMainFiles, ...Object.values(entryJSFiles).flat()]);
    return { page, bytes: [...chunks].reduce((t, c) => t + size(c), 0) };
  });
  return pages.sort((a, b) => a.page.localeCompare(b.page));
}

/** Next's own pages (the not-found and error pages), which draw nothing of the product's. */
const FRAMEWORK_PAGES = new Set(["/_not-found", "/_global-error"]);

/** The pages over `budget`, each named with its size and the budget. */
export function overBudget(weights: readonly PageWeight[], budget = FIRST_LOAD_BUDGET_BYTES): string[] {
  return weights.filter((w) => w.bytes > budget).map((w) => `${w.page}: ${kb(w.bytes)} KB gzipped, over the first-load budget of ${kb(budget)} KB`);
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

function main(): void {
  const nextDir = path.resolve(process.argv[2] ?? ".next");
  const weights = firstLoadWeights(nextDir).filter((w) => !FRAMEWORK_PAGES.has(w.page));
  console.log("| page | first load, KB gzipped |\n|---|---:|");
  for (const w of weights) console.log(`| ${w.page} | ${kb(w.bytes)} |`);
  const over = overBudget(weights);
  if (over.length > 0) {
    for (const line of over) console.error(`first-load budget: ${line}`);
    process.exit(1);
  }
  console.log(`first-load budget: every page within ${kb(FIRST_LOAD_BUDGET_BYTES)} KB gzipped`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
