/** Database.open applies the DuckDB limits it is given (DUCKDB_MEMORY_LIMIT, DUCKDB_TEMP_DIRECTORY: service/config.ts). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { duckDbOptions, loadDuckDbConfig } from "./config";
import { Database } from "./db";

const dir = mkdtempSync(join(tmpdir(), "db-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Database.open", () => {
  it("sets DuckDB's memory limit and spill directory from the configuration", async () => {
    const spill = join(dir, "spill");
    const db = await Database.open(join(dir, "a.duckdb"), duckDbOptions(loadDuckDbConfig({ DUCKDB_MEMORY_LIMIT: "512MiB", DUCKDB_TEMP_DIRECTORY: spill })));
    try {
      const [row] = await db.all<{ limit: string; temp: string }>("SELECT current_setting('memory_limit') AS limit, current_setting('temp_directory') AS temp");
      // DuckDB reports the limit in its own units: 512 MiB.
      expect(row?.limit).toBe("512.0 MiB");
      expect(row?.temp).toBe(spill);
    } finally {
      db.close();
    }
  });
});
