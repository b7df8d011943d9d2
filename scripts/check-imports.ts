/**
 * Import structure checks, run by `npm run lint`:
 *
 * - no two source files import each other, directly or around a longer loop, counting type-only
 *   imports too (a file that needs another's types and is needed by it is one module cut in two);
 * - no loop between feature folders (`lib/features/dashboards`, `lib/core/store`, `components/explore`,
 *   `service/routing`, ...; a file directly under `lib/` or a kind of `lib/` is a folder of its own):
 *   a feature depends on the ones beneath it, never back up;
 * - `lib/`'s kinds in one direction: `lib/contract` (the wire contract) imports only itself;
 *   `lib/core` (mechanisms) the contract and core; `lib/report` (the report machinery every page
 *   shares) those and itself; `lib/features/<name>` any of them and other features; `lib/startup`
 *   (a server's start and its background work) any of them, and none of them it.
 *
 * The imports are read by dependency-cruiser (TypeScript's own resolution, the tsconfig's paths).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

/** The folders holding the project's source (tests and their helpers are not part of the structure). */
export const SOURCE_DIRS = ["app", "components", "lib", "service", "scripts", "bench"] as const;
const NOT_SOURCE = "(^|/)node_modules/|(^|/)\\.next/|\\.test\\.tsx?$|(^|/)testing/";

/** `lib/`'s kinds, lowest first: a file may import its own kind and the ones before it. */
export const LIB_KINDS = ["lib/contract", "lib/core", "lib/report", "lib/features", "lib/startup"] as const;
const KIND_PARENTS = new Set(["lib/core", "lib/report", "lib/features"]);

/**
 * The feature folder a source file belongs to: `lib/features/alerts/run.ts` → `lib/features/alerts`,
 * `lib/report/route.ts` → `lib/report/route`, `lib/startup/background.ts` → `lib/startup`,
 * `app/api/notifications/alerts/route.ts` → `app/api/notifications`.
 */
export function featureFolder(file: string): string {
  const parts = file.split("/");
  const nested = (parts[0] === "app" && parts[1] === "api") || KIND_PARENTS.has(parts.slice(0, 2).join("/"));
  const depth = nested ? 3 : 2;
  if (parts.length > depth) return parts.slice(0, depth).join("/");
  return file.replace(/\.(tsx?|mjs|cjs|js)$/, "");
}

/** The rank of a file's kind in `LIB_KINDS`, or null outside them (app/, components/, ...). */
export function libKind(file: string): number | null {
  const at = LIB_KINDS.findIndex((k) => file.startsWith(`${k}/`));
  return at === -1 ? null : at;
}

/** Strongly connected groups of more than one node (or a node importing itself), each sorted. */
export function loops(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const nodes = new Set<string>([...graph.keys(), ...[...graph.values()].flatMap((s) => [...s])]);
  // Iterative Tarjan: the source tree is deep enough that recursion is not worth the risk.
  for (const root of [...nodes].sort()) {
    if (index.has(root)) continue;
    const work: { node: string; edges: string[]; at: number }[] = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next);
      next += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: [...(graph.get(node) ?? [])].sort(), at: 0 });
    };
    enter(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      if (top.at < top.edges.length) {
        const to = top.edges[top.at]!;
        top.at += 1;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const group: string[] = [];
        for (;;) {
          const n = stack.pop()!;
          onStack.delete(n);
          group.push(n);
          if (n === top.node) break;
        }
        if (group.length > 1 || graph.get(top.node)?.has(top.node)) found.push(group.sort());
      }
    }
  }
  return found;
}

/** What breaks the rules above in the import graph `edges` (from file → to file, project files only), in words. */
export function checkGraph(edges: Iterable<[string, string]>): string[] {
  const files = new Map<string, Set<string>>();
  const folders = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    if (!files.has(from)) files.set(from, new Set());
    files.get(from)!.add(to);
    const [a, b] = [featureFolder(from), featureFolder(to)];
    if (a === b) continue;
    if (!folders.has(a)) folders.set(a, new Set());
    folders.get(a)!.add(b);
  }
  const upwards = new Set<string>();
  for (const [from, to] of edges) {
    const [a, b] = [libKind(from), libKind(to)];
    if (a !== null && b !== null && b > a) upwards.add(`${LIB_KINDS[a]} imports ${LIB_KINDS[b]}: ${from} → ${to}`);
  }
  return [
    ...loops(files).map((group) => `files import each other: ${group.join(" ↔ ")}`),
    ...loops(folders).map((group) => `feature folders import each other: ${group.join(" ↔ ")}`),
    ...[...upwards].sort(),
  ];
}

/** The project-internal import edges of the source under `root`, as paths relative to it. */
export async function importEdges(root: string, dirs: readonly string[] = SOURCE_DIRS): Promise<[string, string][]> {
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const tsConfig = extractTSConfig(path.join(root, "tsconfig.json"));
    const present = dirs.filter((d) => existsSync(path.join(root, d)));
    const { output } = await cruise(
      present,
      {
        tsPreCompilationDeps: true,
        tsConfig: { fileName: "tsconfig.json" },
        exclude: { path: NOT_SOURCE },
        doNotFollow: { path: "node_modules" },
      },
      {},
      { tsConfig },
    );
    const result = output as ICruiseResult;
    const edges: [string, string][] = [];
    for (const m of result.modules) {
      for (const d of m.dependencies) {
        if (d.coreModule || d.couldNotResolve || /(^|\/)node_modules\//.test(d.resolved) || new RegExp(NOT_SOURCE).test(d.resolved)) continue;
        edges.push([m.source, d.resolved]);
      }
    }
    return edges;
  } finally {
    process.chdir(cwd);
  }
}

async function main(): Promise<void> {
  const problems = checkGraph(await importEdges(process.cwd()));
  if (problems.length > 0) {
    for (const p of problems) console.error(`check-imports: ${p}`);
    process.exit(1);
  }
  console.log("check-imports: no file imports another that imports it back; no loop between feature folders; lib's kinds import only downwards");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) void main();
