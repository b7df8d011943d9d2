/**
 * A deliberate breach of a card-network monitoring programme, for the Monitor's tests and the demo
 * data: the chargebacks that make ONE gateway (MID) cross a threshold on chargebacks received in
 * `month` ÷ sales of the month before (every approved attempt, cascades included, as the Monitor
 * counts them; Mastercard's Excessive Chargeback Program by default), as the `chargebacks.csv` of an
 * import directory (docs/import-format.md). The rows go into the data the way a user's export would,
 * through the importer (importDirectory or the CLI's `import`).
 *
 * Deterministic: the same database gives the same gateway and the same rows. The gateway is the
 * one with the most sales of the brand in the month before that has enough approved attempts
 * to charge back; the chargebacks are on its most recent approved attempts of the brand dated
 * before `month` that have no chargeback, refund or alert yet, for their full amount, received on
 * days spread over `month` (so always after the attempt, as the importer requires).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "../db";
import { importDirectory, type ImportResult } from "../data/importer";

export interface BreachOptions {
  /** YYYY-MM: the month the chargebacks are received in. */
  month: string;
  cardBrand?: "VISA" | "MASTERCARD" | "AMEX" | "DISCOVER";
  /** The threshold to reach: the ratio and the minimum count (Mastercard's "excessive" level by default). */
  ratio?: number;
  minCount?: number;
  /** Chargebacks beyond the least that reaches the threshold, so the breach is not on its edge. */
  extra?: number;
}

export interface BreachPlan {
  gatewayId: number;
  cardBrand: string;
  /** YYYY-MM of the chargebacks, and of the sales divided by. */
  month: string;
  salesMonth: string;
  /** Sales of the gateway and brand in salesMonth: approved attempts, cascades included (`net_approvals`). */
  sales: number;
  /** Chargebacks of the gateway and brand already received in month. */
  existing: number;
  /** The rows of chargebacks.csv. */
  added: number;
  /** existing + added, the programme's numerator after the import. */
  total: number;
  /** The text of chargebacks.csv. */
  csv: string;
}

function monthBounds(month: string): { start: string; end: string; days: number } {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const end = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  return { start: `${month}-01`, end, days: Number(end.slice(8)) };
}

function monthBefore(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 7);
}

const cents = (v: unknown) => {
  const c = BigInt(String(v));
  return `${c / 100n}.${String(c % 100n).padStart(2, "0")}`;
};

/** The chargebacks that make one gateway breach; throws when no gateway has enough attempts to charge back. */
export async function planChargebackBreach(db: Database, opts: BreachOptions): Promise<BreachPlan> {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(opts.month)) throw new Error(`month must be YYYY-MM, got "${opts.month}"`);
  const brand = opts.cardBrand ?? "MASTERCARD";
  const ratio = opts.ratio ?? 0.015;
  const minCount = opts.minCount ?? 100;
  const extra = opts.extra ?? 10;
  const cb = monthBounds(opts.month);
  const salesMonth = monthBefore(opts.month);
  const sales = monthBounds(salesMonth);

  const perGateway = await db.all<{ gateway_id: number; sales: string; existing: string; candidates: string }>(
    `WITH s AS (
       SELECT a.gateway_id, count(*) AS n FROM attempts a JOIN bins b USING (bin)
       WHERE b.card_brand = $1 AND a.approved AND a.attempt_date BETWEEN $2::DATE AND $3::DATE
       GROUP BY ALL),
     e AS (
       SELECT a.gateway_id, count(*) AS n FROM chargebacks c JOIN attempts a USING (attempt_id) JOIN bins b USING (bin)
       WHERE b.card_brand = $1 AND c.cb_date BETWEEN $4::DATE AND $5::DATE
       GROUP BY ALL),
     c AS (
       SELECT a.gateway_id, count(*) AS n FROM attempts a JOIN bins b USING (bin)
       WHERE b.card_brand = $1 AND a.approved AND a.attempt_date < $4::DATE
         AND a.attempt_id NOT IN (SELECT attempt_id FROM chargebacks UNION ALL SELECT attempt_id FROM refunds UNION ALL SELECT attempt_id FROM alerts)
       GROUP BY ALL)
     SELECT s.gateway_id, s.n::BIGINT AS sales, coalesce(e.n, 0)::BIGINT AS existing, coalesce(c.n, 0)::BIGINT AS candidates
     FROM s LEFT JOIN e USING (gateway_id) LEFT JOIN c USING (gateway_id)
     ORDER BY s.n DESC, s.gateway_id`,
    [brand, sales.start, sales.end, cb.start, cb.end],
  );
  const needed = (g: { sales: string; existing: string }) => Math.max(minCount, Math.ceil(ratio * Number(g.sales))) + extra - Number(g.existing);
  const chosen = perGateway.find((g) => Number(g.candidates) >= needed(g));
  if (!chosen) {
    throw new Error(`No ${brand} gateway has enough approved attempts before ${cb.start} to breach ${ratio} and ${minCount} in ${opts.month}`);
  }
  const add = Math.max(0, needed(chosen));
  const attempts = await db.all<{ attempt_id: string; amount_cents: string }>(
    `SELECT a.attempt_id::VARCHAR AS attempt_id, a.amount_cents::VARCHAR AS amount_cents FROM attempts a JOIN bins b USING (bin)
     WHERE a.gateway_id = $1 AND b.card_brand = $2 AND a.approved AND a.attempt_date < $3::DATE
       AND a.attempt_id NOT IN (SELECT attempt_id FROM chargebacks UNION ALL SELECT attempt_id FROM refunds UNION ALL SELECT attempt_id FROM alerts)
     ORDER BY a.attempt_date DESC, a.attempt_id
     LIMIT $4`,
    [chosen.gateway_id, brand, cb.start, add],
  );
  const [{ next }] = (await db.all<{ next: string }>(`SELECT (coalesce(max(chargeback_id), 0) + 1)::VARCHAR AS next FROM chargebacks`)) as [{ next: string }];
  const first = BigInt(next);
  const lines = attempts.map((a, i) => {
    const day = `${opts.month}-${String((i % cb.days) + 1).padStart(2, "0")}`;
    return `${first + BigInt(i)},${a.attempt_id},${day},${cents(a.amount_cents)}`;
  });
  return {
    gatewayId: Number(chosen.gateway_id),
    cardBrand: brand,
    month: opts.month,
    salesMonth,
    sales: Number(chosen.sales),
    existing: Number(chosen.existing),
    added: lines.length,
    total: Number(chosen.existing) + lines.length,
    csv: ["chargeback_id,attempt_id,cb_date,amount", ...lines].join("\n") + "\n",
  };
}

/** Writes the plan's chargebacks.csv into a new import directory `dir` (nothing else in it), and returns it. */
export function writeBreachDir(dir: string, plan: BreachPlan): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "chargebacks.csv"), plan.csv);
  return dir;
}

/**
 * Plans the breach and loads it through the importer, from an import directory of its own that is
 * removed afterwards. Throws when the importer rejects a row, so a breach is never half there.
 */
export async function importChargebackBreach(db: Database, opts: BreachOptions): Promise<{ plan: BreachPlan; imported: ImportResult }> {
  const plan = await planChargebackBreach(db, opts);
  const dir = mkdtempSync(join(tmpdir(), "monitor-breach-"));
  try {
    const imported = await importDirectory(db, writeBreachDir(join(dir, "export"), plan));
    if (!imported.ok || imported.rejected > 0) throw new Error(`The breach's chargebacks were refused: ${JSON.stringify(imported.rejections.slice(0, 3))}`);
    return { plan, imported };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
