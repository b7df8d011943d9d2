/**
 * `npm run test:quick`'s unit tests: every test file that needs no server, chosen by what it imports.
 * A file that starts the service (service/testing/harness, test-gateway, the routing test-helpers'
 * child service), PostgreSQL, ClickHouse, an SMTP server, a recording proxy or the web server, that
 * opens sockets or child processes of its own (LibreOffice reading a workbook among them), that
 * generates a data set into a DuckDB file (the generator, the import fixture: minutes on two cores), or that opens a store of its own (PGlite,
 * migrated on every open), is left to `npm test`, which runs every file. Small DuckDB files stay in.
 * New files are sorted by the same rule.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "./vitest.config";

const NEEDS_SERVER = new RegExp(
  [
    // By the module's own name, wherever it is imported from ("./harness" inside service/testing).
    String.raw`from "[^"]*\b(harness|test-gateway|postgres|clickhouse|smtp|recording-proxy|web-start|instance|free-port|monitor-breach|run-scheduler|tick-loop|test-helpers|libreoffice)"`,
    String.raw`from "node:(child_process|net|http|https)"`,
    String.raw`from "[^"]*\b(generator|import-fixture)"`,
    // A store of its own (PGlite, migrated): seconds to a minute per file on two cores.
    String.raw`from "([^"]*store/open|\./open|[^"]*testing/pglite|@electric-sql/pglite)"`,
  ].join("|"),
);

const root = fileURLToPath(new URL(".", import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : testFiles(path);
    return e.name.endsWith(".test.ts") ? [path] : [];
  });
}

const quick = ["lib", "service", "scripts"]
  .flatMap(testFiles)
  .filter((f) => !NEEDS_SERVER.test(readFileSync(join(root, f), "utf8")))
  .map((f) => f.split("\\").join("/"));

// Replaces the include list (merging would add to it); every other setting is the suite's own.
export default defineConfig({ ...base, test: { ...base.test, include: quick } });
