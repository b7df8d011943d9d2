/**
 * The CSV importer (SPEC.md §5): loads a directory of CSV files in the format of
 * docs/import-format.md into the payment tables of schema.ts.
 *
 * All or nothing: rejected rows are counted, the first thousand reported with their file, physical
 * line and reason (REPORTED_REJECTIONS), and if there is any, nothing is loaded. Re-importing the same files inserts nothing (rows are keyed by
 * their id; an identical row is skipped, a different row with the same id is rejected).
 *
 * How it works, in two phases (the parts are in importer/):
 *  1. Each file is streamed through a hand-written validator (types, ranges, enumerations,
 *     cross-field rules, duplicate ids within the file). Valid rows are written, normalized (cents,
 *     canonical spellings, derived values) and tagged with their line number, to a temporary CSV
 *     (importer/validate-file.ts, with the field parsers of fields.ts and the table specs of format.ts).
 *  2. In one transaction, DuckDB reads those temporary files (`read_csv`, explicit types) into
 *     temporary staging tables (load.ts); SQL checks what needs other files or the database
 *     (references, the customer's initial date, event dates against the attempt, conflicts with
 *     existing rows; importer/check-staged.ts); if nothing was rejected, the rows already present are dropped
 *     from staging, the rest are inserted, and the new facts are added to the derived tables
 *     (`addToDerived`; load.ts).
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "../db";
import { SPEC_BY_FILE, TABLES, type ImportTable, type TableSpec } from "./importer/format";
import { loadStaged, stage } from "./importer/load";
import { checkStaged } from "./importer/check-staged";
import { Rejections, REPORTED_REJECTIONS, type ImportRejection } from "./importer/rejections";
import { validateFile, type FileOutcome } from "./importer/validate-file";

export { REPORTED_REJECTIONS, TABLES, type ImportRejection };

export interface ImportResult {
  ok: boolean;
  /** Rows added, per table (only tables whose file was present). All zero when `ok` is false. */
  inserted: Record<string, number>;
  /** Rows already in the database with identical content, per table. All zero when `ok` is false. */
  skippedDuplicates: Record<string, number>;
  /** Rows rejected (all of them); `rejections` reports the first REPORTED_REJECTIONS, in file and line order. */
  rejected: number;
  rejections: ImportRejection[];
}

class RollbackImport extends Error {}

/**
 * Imports the CSV files of `dir` (see docs/import-format.md). Resolves with the outcome; rejects
 * only for problems that are not the data's fault (the directory cannot be read, database errors).
 */
export async function importDirectory(db: Database, dir: string): Promise<ImportResult> {
  const rejections = new Rejections();
  const present: TableSpec[] = [];

  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith(".")) continue; // hidden files (.DS_Store, editors' backups)
    const spec = SPEC_BY_FILE.get(e.name);
    if (!spec) {
      const hint = SPEC_BY_FILE.get(e.name.toLowerCase()) ? ` (file names are lower-case: ${e.name.toLowerCase()})` : "";
      rejections.reject(e.name, 0, `unexpected file; an import directory holds only ${TABLES.map((t) => t.file).join(", ")}${hint}`);
      continue;
    }
    const st = await stat(join(dir, e.name));
    if (!st.isFile()) {
      rejections.reject(e.name, 0, "not a regular file");
      continue;
    }
    present.push(spec);
  }
  present.sort((a, b) => TABLES.indexOf(a) - TABLES.indexOf(b));

  const zero = () => Object.fromEntries(present.map((s) => [s.table, 0])) as Record<string, number>;
  const work = await mkdtemp(join(tmpdir(), "payments-import-"));
  try {
    // Phase 1: validate every file.
    const outcomes = new Map<ImportTable, FileOutcome>();
    for (const spec of present) {
      const o = await validateFile(spec, join(dir, spec.file), join(work, spec.file), rejections);
      outcomes.set(spec.table, o);
    }

    // Phase 2: stage, check, insert; all in one transaction.
    const inserted = zero();
    const skippedDuplicates = zero();
    try {
      await db.transaction(async (tx) => {
        const staged = [...outcomes.values()].filter((o): o is FileOutcome & { stagingPath: string } => o.stagingPath !== null);
        for (const o of staged) await stage(tx, o.spec, o.stagingPath, o.rejectedKeysPath);
        await checkStaged(tx, staged, outcomes, rejections);
        if (rejections.size > 0) throw new RollbackImport();
        await loadStaged(tx, staged, inserted, skippedDuplicates);
      });
    } catch (err) {
      if (!(err instanceof RollbackImport)) throw err;
    }

    if (rejections.size > 0) {
      return { ok: false, inserted: zero(), skippedDuplicates: zero(), rejected: rejections.size, rejections: rejections.sorted() };
    }
    return { ok: true, inserted, skippedDuplicates, rejected: 0, rejections: [] };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
