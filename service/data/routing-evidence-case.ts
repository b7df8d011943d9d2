/**
 * The routing evidence case of the demo data (docs/routing.md "The evidence case"): two BINs of
 * their own, each with two MIDs over the 80 days before the data's last days, where
 *
 * - on the "better" BIN one MID truly approves more often (60 % against 52 %, 1,800 and 1,600
 *   attempts), so the routing workspace proposes it;
 * - on the "noise" BIN both MIDs approve with the same chance (56 %, 1,700 attempts each), so what
 *   differs between them is noise and nothing is proposed.
 *
 * The BINs are new (no generated attempt uses them; their bank is the case's own), so their figures
 * are exactly the case's. Each attempt is a customer's single initial order, approved with its side's
 * chance; approved ones are charged back with a small chance (a little more often on the better MID,
 * so the proposal shows a worse chargeback rate beside its better approvals). The rows go into the
 * data as a user's export would, through the importer; deterministic for the same database, and
 * recorded in dataset_info under ROUTING_EVIDENCE_CASE_KEY, which the demo routing configuration
 * reads to route both BINs to a group of one MID (their current MID).
 *
 * The generator's own rows are untouched: the case is added after generation (npm start, or the
 * CLI's `routing-evidence-case`), so no other data set, and no test's numbers, change.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDays } from "../../lib/contract/dates";
import type { Database } from "../db";
import { importDirectory } from "./importer";
import { Prng } from "./prng";

export const ROUTING_EVIDENCE_CASE_KEY = "routing_evidence_case";
export const ROUTING_EVIDENCE_BANK = "ROUTING EVIDENCE CASE BANK (DEMO)";

/** Days before the data's end date the case's attempts fall in (inside the last 90 full days, with room for a day's drift). */
const FIRST_DAY_BEFORE_END = 85;
const LAST_DAY_BEFORE_END = 5;
const AMOUNT = "39.95";
/**
 * The case's own seed, whatever the data set's: its draws, and so its counts, are the same in every
 * data set made from the generator's reference world (docs/routing.md lists them).
 */
const CASE_SEED = 1;

interface SideSpec {
  attempts: number;
  approvalChance: number;
  cbChance: number;
}

const SPEC = {
  better: { current: { attempts: 1_600, approvalChance: 0.52, cbChance: 0.008 }, better: { attempts: 1_800, approvalChance: 0.6, cbChance: 0.011 } },
  noise: { current: { attempts: 1_700, approvalChance: 0.56, cbChance: 0.009 }, other: { attempts: 1_700, approvalChance: 0.56, cbChance: 0.009 } },
} as const satisfies Record<string, Record<string, SideSpec>>;

export interface CaseSide {
  bin: string;
  gateway_id: number;
  attempts: number;
  approvals: number;
  chargebacks: number;
}

export interface RoutingEvidenceCase {
  /** The BIN where `better_gateway_id` truly approves more often than `current_gateway_id`. */
  better_bin: string;
  /** The BIN where both MIDs approve with the same chance. */
  noise_bin: string;
  /** The MID both BINs are routed to by the demo configuration (a group of one member). */
  current_gateway_id: number;
  /** The other MID of both BINs; active in the demo configuration's fallback group. */
  better_gateway_id: number;
  /** First and last day of the case's attempts. */
  from: string;
  to: string;
  /** What was imported, per BIN and MID. */
  sides: CaseSide[];
}

/** Six-digit BINs the bins table does not hold yet, the first two from 499000 on. */
async function freeBins(db: Database): Promise<[string, string]> {
  const used = new Set((await db.all<{ bin: string }>("SELECT bin FROM bins")).map((r) => r.bin));
  const out: string[] = [];
  for (let n = 499_000; out.length < 2 && n <= 499_999; n++) if (!used.has(String(n))) out.push(String(n));
  if (out.length < 2) throw new Error("no free BIN between 499000 and 499999 for the routing evidence case");
  return [out[0]!, out[1]!];
}

async function next(db: Database, table: string, column: string): Promise<bigint> {
  const [row] = await db.all<{ n: string }>(`SELECT (coalesce(max(${column}), 0) + 1)::VARCHAR AS n FROM ${table}`);
  return BigInt(row!.n);
}

/** Plans the case against the database's reference data and last day; the CSV files of an import directory. */
export async function planRoutingEvidenceCase(db: Database): Promise<{ plan: RoutingEvidenceCase; files: Record<string, string> }> {
  const [info] = await db.all<{ value: string }>("SELECT value FROM dataset_info WHERE key = 'end_date'");
  if (!info) throw new Error("the routing evidence case needs generated data (dataset_info has no end_date)");
  const gateways = (await db.all<{ gateway_id: number }>("SELECT gateway_id FROM gateways ORDER BY gateway_id LIMIT 2")).map((r) => r.gateway_id);
  const [campaign] = await db.all<{ campaign_id: number }>("SELECT campaign_id FROM campaigns ORDER BY campaign_id LIMIT 1");
  const [product] = await db.all<{ product_id: number }>("SELECT product_id FROM products ORDER BY product_id LIMIT 1");
  if (gateways.length < 2 || !campaign || !product) throw new Error("the routing evidence case needs two gateways, a campaign and a product");
  const [current, better] = gateways as [number, number];
  const [betterBin, noiseBin] = await freeBins(db);
  const from = addDays(info.value, -FIRST_DAY_BEFORE_END);
  const to = addDays(info.value, -LAST_DAY_BEFORE_END);
  const days = FIRST_DAY_BEFORE_END - LAST_DAY_BEFORE_END + 1;

  const rng = new Prng(CASE_SEED, "routing-evidence-case");
  let customerId = await next(db, "customers", "customer_id");
  let attemptId = await next(db, "attempts", "attempt_id");
  let orderId = await next(db, "attempts", "order_id");
  let chargebackId = await next(db, "chargebacks", "chargeback_id");
  const customers = ["customer_id,initial_date,campaign_id,product_id,price_point"];
  const attempts = ["attempt_id,order_id,customer_id,attempted_at,attempt_no,is_cascade,approved,amount,billing_cycle,sales_type,campaign_id,product_id,gateway_id,bin,price_point,initial_date"];
  const chargebacks = ["chargeback_id,attempt_id,cb_date,amount"];
  const sides: CaseSide[] = [];
  const plan: [string, number, SideSpec][] = [
    [betterBin, current, SPEC.better.current],
    [betterBin, better, SPEC.better.better],
    [noiseBin, current, SPEC.noise.current],
    [noiseBin, better, SPEC.noise.other],
  ];
  for (const [bin, gatewayId, spec] of plan) {
    const side: CaseSide = { bin, gateway_id: gatewayId, attempts: spec.attempts, approvals: 0, chargebacks: 0 };
    for (let i = 0; i < spec.attempts; i++) {
      const day = addDays(from, rng.int(days));
      const seconds = rng.int(86_400);
      const at = `${day}T${String(Math.floor(seconds / 3600)).padStart(2, "0")}:${String(Math.floor(seconds / 60) % 60).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}Z`;
      const approved = rng.next() < spec.approvalChance;
      customers.push(`${customerId},${day},${campaign.campaign_id},${product.product_id},${AMOUNT}`);
      attempts.push(`${attemptId},${orderId},${customerId},${at},1,false,${approved},${AMOUNT},0,Initials,${campaign.campaign_id},${product.product_id},${gatewayId},${bin},${AMOUNT},${day}`);
      if (approved) {
        side.approvals++;
        if (rng.next() < spec.cbChance) {
          const cbDay = addDays(day, 10 + rng.int(30));
          chargebacks.push(`${chargebackId},${attemptId},${cbDay < info.value ? cbDay : info.value},${AMOUNT}`);
          chargebackId++;
          side.chargebacks++;
        }
      }
      customerId++;
      attemptId++;
      orderId++;
    }
    sides.push(side);
  }
  const bins = ["bin,bank,card_brand,card_type", `${betterBin},${ROUTING_EVIDENCE_BANK},VISA,CREDIT`, `${noiseBin},${ROUTING_EVIDENCE_BANK},VISA,CREDIT`];
  const csv = (lines: string[]) => `${lines.join("\n")}\n`;
  return {
    plan: { better_bin: betterBin, noise_bin: noiseBin, current_gateway_id: current, better_gateway_id: better, from, to, sides },
    files: { "bins.csv": csv(bins), "customers.csv": csv(customers), "attempts.csv": csv(attempts), "chargebacks.csv": csv(chargebacks) },
  };
}

/** The case recorded in dataset_info, or null when the data has none. */
export async function routingEvidenceCase(db: Pick<Database, "all">): Promise<RoutingEvidenceCase | null> {
  const [row] = await db.all<{ value: string }>("SELECT value FROM dataset_info WHERE key = ?", [ROUTING_EVIDENCE_CASE_KEY]);
  return row ? (JSON.parse(row.value) as RoutingEvidenceCase) : null;
}

/**
 * Plans the case and loads it through the importer (from an import directory of its own, removed
 * afterwards), then records it in dataset_info. Throws when the importer rejects a row, so the case
 * is never half there; a database that already has the case is left as it is.
 */
export async function importRoutingEvidenceCase(db: Database): Promise<RoutingEvidenceCase> {
  const existing = await routingEvidenceCase(db);
  if (existing) return existing;
  const { plan, files } = await planRoutingEvidenceCase(db);
  const dir = mkdtempSync(join(tmpdir(), "routing-evidence-case-"));
  try {
    const exportDir = join(dir, "export");
    mkdirSync(exportDir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(exportDir, name), text);
    const imported = await importDirectory(db, exportDir);
    if (!imported.ok || imported.rejected > 0) throw new Error(`The routing evidence case was refused: ${JSON.stringify(imported.rejections.slice(0, 3))}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await db.run("INSERT INTO dataset_info (key, value) VALUES (?, ?)", [ROUTING_EVIDENCE_CASE_KEY, JSON.stringify(plan)]);
  return plan;
}
