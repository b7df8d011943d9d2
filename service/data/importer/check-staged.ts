/**
 * The second phase of an import's checks: `checkStaged` runs in SQL on the staging tables (load.ts)
 * what needs other files or the database: references, the customer's initial date, event dates
 * against the attempt, conflicts with existing rows. The first phase is ./validate-file.ts.
 */
import type { Row, SqlParam, Tx } from "../../db";
import { EVENT_FACTS, EVENT_TABLES_LIST } from "../../reports/facts";
import { csvName, specOf, type ImportTable } from "./format";
import { rejectedKeysTable, stagingTable } from "./load";
import type { Rejections } from "./rejections";
import type { FileOutcome } from "./validate-file";

// Phase 2: cross-file and database checks on the staging tables

/** The checks of the staged files (those read whole) against each other and the database. */
export async function checkStaged(
  tx: Tx,
  staged: readonly FileOutcome[],
  outcomes: Map<ImportTable, FileOutcome>,
  rejections: Rejections,
): Promise<void> {
  await tx.run("CREATE TEMP TABLE import_rejected_lines (file VARCHAR, line INTEGER)");
  for (const o of staged) {
    await checkDuplicates(tx, o, rejections);
    await checkConflicts(tx, o, rejections);
    await checkReferences(tx, o, outcomes, rejections);
    await checkEvents(tx, o, outcomes, rejections);
  }
  await checkInitialDates(tx, outcomes, rejections);
  const [row] = await tx.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM (SELECT DISTINCT file, line FROM import_rejected_lines)");
  rejections.countRows(row?.n ?? 0);
  await tx.run("DROP TABLE import_rejected_lines");
}

/**
 * The rows of `sql` (a SELECT with a `line` column), rows of `file` that a check rejects: every one
 * is counted (in import_rejected_lines), and the first in line order are returned, as many as can be
 * reported, for the check to give its reasons.
 */
async function rejectedRows<T extends Row>(tx: Tx, rejections: Rejections, file: string, sql: string, params: SqlParam[] = []): Promise<T[]> {
  await tx.run(`CREATE TEMP TABLE import_check AS ${sql}`, params);
  try {
    await tx.run("INSERT INTO import_rejected_lines SELECT ?, line FROM import_check", [file]);
    return await tx.all<T>(`SELECT * FROM import_check ORDER BY line LIMIT ?`, [rejections.limit]);
  } finally {
    await tx.run("DROP TABLE import_check");
  }
}

/** The date column of the event tables (checked against the attempt's date). */
const EVENT_DATE: Partial<Record<ImportTable, string>> = Object.fromEntries(EVENT_TABLES_LIST.map((t) => [t, EVENT_FACTS[t].date]));

function formatCents(cents: string | number): string {
  const s = String(cents).padStart(3, "0");
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

/**
 * Rows whose id an earlier valid row of the same file has: rejected, and taken out of the staging
 * table so that the checks after this one see each id once (as the first row's).
 */
async function checkDuplicates(tx: Tx, o: FileOutcome, rejections: Rejections): Promise<void> {
  const s = stagingTable(o.spec.table);
  const key = o.spec.key;
  const rows = await rejectedRows<{ line: number; k: string; first: number }>(
    tx,
    rejections,
    o.spec.file,
    `SELECT s.line, s.${key}::VARCHAR AS k, f.first
     FROM ${s} s JOIN (SELECT ${key}, min(line) AS first FROM ${s} GROUP BY ${key} HAVING count(*) > 1) f ON f.${key} = s.${key}
     WHERE s.line > f.first`,
  );
  for (const r of rows) rejections.add(o.spec.file, r.line, `${key} ${r.k} already appears on line ${r.first}`);
  // This is each file's first check, so the file's rejected lines so far are its repeats.
  if (rows.length > 0) {
    await tx.run(`DELETE FROM ${s} WHERE line IN (SELECT line FROM import_rejected_lines WHERE file = ?)`, [o.spec.file]);
  }
}

/** Rows in the staging table whose id exists in the table with different content. */
async function checkConflicts(tx: Tx, o: FileOutcome, rejections: Rejections): Promise<void> {
  const { spec } = o;
  const s = stagingTable(spec.table);
  const key = spec.key;
  const same = spec.columns.map((c) => `t2.${c.db} IS NOT DISTINCT FROM s.${c.db}`).join(" AND ");
  const diff = spec.columns
    .filter((c) => c.db !== key)
    .map((c) => `CASE WHEN t.${c.db} IS DISTINCT FROM s.${c.db} THEN '${c.name}' END`)
    .join(", ");
  const rows = await rejectedRows<{ line: number; k: string | number; diff: string }>(
    tx,
    rejections,
    spec.file,
    `SELECT s.line, s.${key}::VARCHAR AS k, min(concat_ws(', ', ${diff})) AS diff
     FROM ${s} s JOIN ${spec.table} t ON t.${key} = s.${key}
     WHERE NOT EXISTS (SELECT 1 FROM ${spec.table} t2 WHERE t2.${key} = s.${key} AND ${same})
     GROUP BY s.line, s.${key}`,
  );
  for (const r of rows) {
    rejections.add(spec.file, r.line, `${key} ${r.k} already exists in the database with different values (${r.diff})`);
  }
}

async function checkReferences(
  tx: Tx,
  o: FileOutcome,
  outcomes: Map<ImportTable, FileOutcome>,
  rejections: Rejections,
): Promise<void> {
  const { spec } = o;
  for (const ref of spec.refs) {
    const parent = specOf(ref.table);
    const parentOutcome = outcomes.get(ref.table);
    // The parent file is present but could not be read at all: nothing can be said about its ids.
    if (parentOutcome && parentOutcome.stagingPath === null) continue;
    // Ids of parent rows rejected in this import are left out: those rows are reported there.
    const inImport = parentOutcome
      ? `EXCEPT SELECT ${parent.key} FROM ${stagingTable(ref.table)} EXCEPT SELECT id FROM ${rejectedKeysTable(ref.table)}`
      : "";
    // The ids referenced and found nowhere first, then their rows: an anti-join of every row against
    // the parents held a hash table of millions of rows, which ran out of DuckDB's memory limit
    // inside the import's transaction (20 M attempts against 12 M customers: bench:import-large).
    // Reference columns are required, so never null.
    const s = stagingTable(spec.table);
    const rows = await rejectedRows<{ line: number; k: string | number }>(
      tx,
      rejections,
      spec.file,
      `SELECT s.line, s.${ref.column} AS k FROM ${s} s
       WHERE s.${ref.column} IN (SELECT ${ref.column} FROM ${s} EXCEPT SELECT ${parent.key} FROM ${ref.table} ${inImport})`,
    );
    const where = parentOutcome ? `in ${parent.file} nor in the database` : `in the database (and no ${parent.file} was imported)`;
    for (const r of rows) rejections.add(spec.file, r.line, `${csvName(spec, ref.column)} ${r.k} does not exist: not ${where}`);
  }
}

/** attempts.initial_date must be the customer's initial_date. */
async function checkInitialDates(tx: Tx, outcomes: Map<ImportTable, FileOutcome>, rejections: Rejections): Promise<void> {
  const att = outcomes.get("attempts");
  const cust = outcomes.get("customers");
  if (!att?.stagingPath || (cust && !cust.stagingPath)) return;
  const customers = cust
    ? `SELECT customer_id, initial_date FROM ${stagingTable("customers")}
       UNION ALL
       SELECT customer_id, initial_date FROM customers c
       WHERE NOT EXISTS (SELECT 1 FROM ${stagingTable("customers")} s WHERE s.customer_id = c.customer_id)`
    : `SELECT customer_id, initial_date FROM customers`;
  const rows = await rejectedRows<{ line: number; customer_id: string; mine: string; theirs: string }>(
    tx,
    rejections,
    "attempts.csv",
    `WITH c AS (${customers})
     SELECT a.line, a.customer_id, a.initial_date AS mine, min(c.initial_date) AS theirs
     FROM ${stagingTable("attempts")} a JOIN c ON c.customer_id = a.customer_id
     WHERE c.initial_date <> a.initial_date
     GROUP BY a.line, a.customer_id, a.initial_date`,
  );
  for (const r of rows) {
    rejections.add(
      "attempts.csv",
      r.line,
      `initial_date ${r.mine} differs from customer ${r.customer_id}'s initial_date ${r.theirs}`,
    );
  }
}

/** Refunds, chargebacks and alerts: on an approved attempt, not before it, for no more than it. */
async function checkEvents(tx: Tx, o: FileOutcome, outcomes: Map<ImportTable, FileOutcome>, rejections: Rejections): Promise<void> {
  const dateCol = EVENT_DATE[o.spec.table];
  if (!dateCol) return;
  const att = outcomes.get("attempts");
  if (att && !att.stagingPath) return;
  const attempts = att
    ? `SELECT attempt_id, attempt_date, approved, amount_cents FROM ${stagingTable("attempts")}
       UNION ALL
       SELECT attempt_id, attempt_date, approved, amount_cents FROM attempts t
       WHERE NOT EXISTS (SELECT 1 FROM ${stagingTable("attempts")} s WHERE s.attempt_id = t.attempt_id)`
    : `SELECT attempt_id, attempt_date, approved, amount_cents FROM attempts`;
  const rows = await rejectedRows<{
    line: number;
    attempt_id: string;
    d: string;
    amount: string;
    attempt_date: string;
    approved: boolean;
    attempt_amount: string;
  }>(
    tx,
    rejections,
    o.spec.file,
    `WITH a AS (${attempts})
     SELECT e.line, e.attempt_id, e.${dateCol} AS d, e.amount_cents AS amount,
            a.attempt_date, a.approved, a.amount_cents AS attempt_amount
     FROM ${stagingTable(o.spec.table)} e JOIN a ON a.attempt_id = e.attempt_id
     WHERE e.${dateCol} < a.attempt_date OR NOT a.approved OR e.amount_cents > a.amount_cents
     QUALIFY row_number() OVER (PARTITION BY e.line ORDER BY a.attempt_date) = 1`,
  );
  for (const r of rows) {
    const problems: string[] = [];
    if (!r.approved) problems.push(`attempt ${r.attempt_id} was declined (only an approved charge can be ${eventVerb(o.spec.table)})`);
    if (r.d < r.attempt_date) problems.push(`${dateCol} ${r.d} is before the attempt's date ${r.attempt_date}`);
    if (BigInt(r.amount) > BigInt(r.attempt_amount)) {
      problems.push(`amount ${formatCents(r.amount)} exceeds the attempt's amount ${formatCents(r.attempt_amount)}`);
    }
    for (const p of problems) rejections.add(o.spec.file, r.line, p);
  }
}

function eventVerb(t: ImportTable): string {
  return t === "refunds" ? "refunded" : t === "chargebacks" ? "charged back" : "alerted";
}
