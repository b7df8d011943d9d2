/**
 * Deterministic synthetic payment data (SPEC.md §5): a subscription merchant's customers, their
 * initial orders and rebills, every payment attempt with retries and cascades, and the refunds,
 * alerts and chargebacks that follow approvals.
 *
 * Determinism: every draw comes from the seeded generator in prng.ts, in a fixed order, and IDs are
 * handed out in generation order; nothing reads the clock or Math.random. The reference world
 * (gateways, campaigns, products, BINs, affiliates, and the hidden approval/risk effects of banks and
 * gateways) comes from a fixed world seed, so it is the same for every `seed`: BINs, gateway ids and
 * routing insights stay valid across regenerations, and `seed` varies only the customers and events.
 *
 * Shape of the run: one pass over the days, oldest first. Each day processes the rebills and
 * retries that fall due that day, then the day's new customers, then the refunds, alerts and
 * chargebacks dated that day (all decided when their attempt was approved and parked in a calendar
 * queue until their date). Anything dated after `endDate` is simply never reached. So every fact
 * table is written in date order, which keeps DuckDB's per-row-group min/max on the date columns
 * tight for the report queries.
 *
 * Loading: rows are built in Int32Array columns, packed (several small fields per INTEGER) and
 * appended with the DuckDB appender, a data chunk at a time, into temporary staging tables; one
 * INSERT … SELECT per table then unpacks them into the real tables. On 10M attempt rows this took
 * 7.7 s against 21 s for appending the final column types (BIGINT, DATE, TIMESTAMP, VARCHAR) from JS,
 * where every value costs a BigInt, a date object or a native string call. All of it runs in one
 * transaction, so readers see either the old data set or the new one.
 */
import { DuckDBDataChunk, DuckDBVector, INTEGER, VARCHAR, BIGINT, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBValue } from "@duckdb/node-api";
import { rebuildDerived } from "./derived";
import type { Database, Tx } from "../db";
import { ALERT_TYPES, CARD_BRANDS, CARD_TYPES, REFUND_TYPES, SALES_TYPES } from "../../lib/contract/catalog";
import { fromEpochDay, isCalendarDate, toEpochDay } from "../../lib/contract/dates";
import { Prng, WeightedSampler } from "./prng";
import {
  ACQUIRERS,
  AFFILIATE_COUNT,
  AFFILIATE_ID_BASE,
  BANKS,
  BANK_KIND_PROFILES,
  BIN_COUNT,
  CAMPAIGN_CHANNELS,
  CAMPAIGN_ID_BASE,
  CAMPAIGNS_PER_LINE,
  CPA_RANGES,
  FIRST_REBILL_DAYS,
  HOURLY_WEIGHTS,
  PINNED_BINS,
  PRICE_POINTS,
  PRODUCT_ID_BASE,
  PRODUCT_LINES,
  PRODUCT_SKUS,
  REBILL_BATCH_WINDOW,
  REBILL_INTERVAL_DAYS,
  SUB_AFFILIATE_SOURCES,
  WEEKDAY_FACTORS,
  type CampaignType,
  type CardBrand,
  type CardType,
  type SkuRole,
} from "./reference-data";

export interface GenerateOptions {
  /** Number of days of data, ending on `endDate`. */
  days: number;
  /** Mean number of new customers (initial orders) per day. */
  ordersPerDay: number;
  seed: number;
  /** YYYY-MM-DD, the last day of data. */
  endDate: string;
  onProgress?: (msg: string) => void;
}

/** The demo data set of `npm start` (ending today), about 1.5 M attempts; the invariant tests use it too. */
export const DEMO_DATASET = { days: 400, ordersPerDay: 1500, seed: 42 } as const;

export interface GenerateSummary {
  customers: number;
  attempts: number;
  refunds: number;
  chargebacks: number;
  alerts: number;
  startDate: string;
  endDate: string;
  seconds: number;
}

/** Seed of the reference world; changing it changes every BIN, campaign and gateway trait. */
const WORLD_SEED = 20250731;

/** Upper bounds that keep IDs and packed fields inside their INTEGER staging columns. */
export const GENERATE_LIMITS = { maxDays: 3660, maxOrdersPerDay: 1_000_000 } as const;

// ---------------------------------------------------------------------------------------------
// Behaviour model. Approval is a logistic model; these are log-odds shifts unless said otherwise.
// The bases are calibrated so that, with the bank/BIN/gateway/customer spread below, first-attempt
// initial approval lands near 72% and first-attempt rebill approval near 55%.

const BASE_LOGIT_INITIAL = 0.95;
const BASE_LOGIT_REBILL = -0.15;
/** Per-customer card quality (funds, credit line), shared by all their orders. */
const CUSTOMER_SIGMA = 0.7;
const BANK_SIGMA = 0.3;
const BIN_SIGMA = 0.25;
const ACQUIRER_SIGMA = 0.2;
const GATEWAY_SIGMA = 0.2;
/** Bank x gateway affinity: the fixed matrix that gives BIN/bank routing something to find. */
const AFFINITY_SIGMA = 0.45;

const CARD_TYPE_LOGIT: Readonly<Record<CardType, { initial: number; rebill: number }>> = {
  CREDIT: { initial: 0, rebill: 0 },
  // Debit and prepaid decline rebills for insufficient funds far more often than credit.
  DEBIT: { initial: -0.15, rebill: -0.4 },
  PREPAID: { initial: -0.7, rebill: -1.2 },
};

/** Log-odds penalty of retry attempts 2 and 3, by whether the retry cascades to another gateway. */
const INITIAL_RETRY_PENALTY = { same: [-0.9, -1.2], cascade: [-0.5, -0.8] } as const;
const REBILL_RETRY_PENALTY = { same: [-0.5, -0.8], cascade: [-0.35, -0.6] } as const;

/** Chance that a declined attempt gets another try (after attempt 1, after attempt 2). */
const INITIAL_RETRY_CHANCE = [0.65, 0.45] as const;
const REBILL_RETRY_CHANCE = [0.85, 0.7] as const;
/** Share of those retries sent to a different gateway. */
const INITIAL_CASCADE_SHARE = 0.8;
const REBILL_CASCADE_SHARE = 0.5;
/** Seconds between an initial order's attempts (the checkout cascades while the customer waits). */
const INITIAL_RETRY_DELAY_MIN = 3;
const INITIAL_RETRY_DELAY_MAX = 42;
/** Rebill retries run this many days after the order's first attempt (attempts 2 and 3). */
const REBILL_RETRY_OFFSETS = [3, 7] as const;
/** Rebills stay on the gateway of the last approval, except this share re-routed by the campaign's pool. */
const REBILL_REROUTE_SHARE = 0.15;

/** Chance that an approved subscriber is billed again: before cycle 1, and before each later cycle. */
const RETENTION_FIRST = 0.7;
const RETENTION_LATER = 0.8;

/** Dispute base rates per approved attempt; alerts and chargebacks scale with risk (mean ~1). */
const ALERT_RATE = 0.0125;
const CB_RATE = 0.0055;
const CS_REFUND_RATE: Readonly<Record<SalesType, number>> = {
  Initials: 0.03,
  Rebills: 0.05,
  "Straight Sales": 0.035,
};
/** Disputes are rarer on small trial charges and more common on rebills the customer forgot about. */
const SALES_TYPE_RISK: Readonly<Record<SalesType, number>> = { Initials: 0.6, Rebills: 1.35, "Straight Sales": 0.8 };
const CARD_TYPE_RISK: Readonly<Record<CardType, number>> = { CREDIT: 0.9, DEBIT: 1, PREPAID: 2.2 };
/** Alert networks by card brand: RDR is Visa's; Ethoca is strongest on Mastercard. */
const ALERT_MIX: Readonly<Record<CardBrand, Readonly<Record<AlertType, number>>>> = {
  VISA: { ETHOCA: 0.3, CDRN: 0.35, RDR: 0.35 },
  MASTERCARD: { ETHOCA: 0.65, CDRN: 0.35, RDR: 0 },
  AMEX: { ETHOCA: 0.3, CDRN: 0.7, RDR: 0 },
  DISCOVER: { ETHOCA: 0.3, CDRN: 0.7, RDR: 0 },
};
/** RDR refunds automatically; the others are refunded when the merchant acts in time. */
const ALERT_REFUND_CHANCE: Readonly<Record<AlertType, number>> = { ETHOCA: 0.8, CDRN: 0.8, RDR: 1 };
/** Chargeback after an alert, when it was not refunded / when it was. */
const CB_AFTER_UNREFUNDED_ALERT = 0.65;
const CB_AFTER_REFUNDED_ALERT = 0.03;
const CB_AFTER_CS_REFUND = 0.01;
const MAX_CB_LAG_DAYS = 120;
const MAX_ALERT_LAG_DAYS = 60;
const MAX_CS_REFUND_LAG_DAYS = 30;

type SalesType = (typeof SALES_TYPES)[number];
type AlertType = (typeof ALERT_TYPES)[number];

const ST_INITIALS = SALES_TYPES.indexOf("Initials");
const ST_REBILLS = SALES_TYPES.indexOf("Rebills");
const ST_STRAIGHT = SALES_TYPES.indexOf("Straight Sales");
const RT_ALERT = REFUND_TYPES.indexOf("Refund Alert");
const RT_CS = REFUND_TYPES.indexOf("Refund CS");

// ---------------------------------------------------------------------------------------------
// The reference world

interface GatewayRow {
  id: number;
  alias: string;
  acquirer: string;
  mcc: string;
  approval: number;
  risk: number;
  /** Share of traffic the merchant gives this MID when it is in a campaign's pool. */
  capacity: number;
}

interface ProductRow {
  id: number;
  name: string;
  group: string;
}

interface CampaignRow {
  id: number;
  name: string;
  type: CampaignType;
  cpaCents: number;
  /** Sales type index of the initial order. */
  initialSalesType: number;
  initialProduct: number;
  initialPrices: readonly number[];
  rebillProduct: number;
  rebillPrice: number;
  /** Null for straight sales (no rebills). */
  firstRebillDays: number | null;
  weight: number;
  /** Gateway indexes the campaign routes to, with a sampler over them. */
  pool: readonly number[];
  poolSampler: WeightedSampler;
}

interface BankRow {
  name: string;
  approval: number;
  risk: number;
}

interface BinRow {
  bin: string;
  bank: number;
  brand: CardBrand;
  type: CardType;
  weight: number;
}

interface SubAffiliateRow {
  affid: string;
  subAffid: string;
  weight: number;
  /** Multiplies retention: some affiliates send customers who stay, some don't. */
  retention: number;
  /** Multiplies alert and chargeback rates. */
  risk: number;
}

interface World {
  gateways: GatewayRow[];
  products: ProductRow[];
  campaigns: CampaignRow[];
  banks: BankRow[];
  bins: BinRow[];
  subAffiliates: SubAffiliateRow[];
  /** Approval log-odds by bin * gateways + gateway, without customer and retry effects. */
  initialLogit: Float64Array;
  rebillLogit: Float64Array;
  /** Dispute risk of a BIN's cardholders (bank x card type). */
  binRisk: Float64Array;
}

function lognormalMeanOne(rng: Prng, sigma: number): number {
  return Math.exp(sigma * rng.normal() - (sigma * sigma) / 2);
}

function digits(rng: Prng, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String(rng.int(10));
  return s;
}

/** A BIN whose leading digits match the brand's IIN range. */
function binFor(rng: Prng, brand: CardBrand): string {
  switch (brand) {
    case "VISA":
      return "4" + digits(rng, 5);
    case "MASTERCARD":
      return "5" + String(rng.range(1, 5)) + digits(rng, 4);
    case "AMEX":
      return (rng.chance(0.5) ? "34" : "37") + digits(rng, 4);
    case "DISCOVER":
      return rng.chance(0.3) ? "6011" + digits(rng, 2) : "65" + digits(rng, 4);
  }
}

/** Draws a key of a partial weight map, in the catalog's order so the draw is stable. */
function pickWeighted<K extends string>(rng: Prng, keys: readonly K[], weights: Readonly<Partial<Record<K, number>>>): K {
  let total = 0;
  for (const k of keys) total += weights[k] ?? 0;
  let x = rng.next() * total;
  let last: K | undefined;
  for (const k of keys) {
    const w = weights[k] ?? 0;
    if (w <= 0) continue;
    last = k;
    if (x < w) return k;
    x -= w;
  }
  if (last === undefined) throw new Error("no positive weight");
  return last;
}

/** Splits `total` into parts proportional to `weights` (largest remainder; ties by index). */
function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left-- <= 0) break;
    out[i] = (out[i] ?? 0) + 1;
  }
  return out;
}

function buildGateways(): GatewayRow[] {
  const rng = new Prng(WORLD_SEED, "gateways");
  const out: GatewayRow[] = [];
  for (const acq of ACQUIRERS) {
    const acquirerEffect = ACQUIRER_SIGMA * rng.normal();
    for (let k = 1; k <= acq.mids; k++) {
      out.push({
        id: out.length + 1,
        alias: `${acq.short} ${String(k).padStart(2, "0")}`,
        acquirer: acq.name,
        mcc: rng.pick(acq.mccs),
        approval: acquirerEffect + GATEWAY_SIGMA * rng.normal(),
        risk: lognormalMeanOne(rng, 0.3),
        capacity: 0.5 + 1.5 * rng.next(),
      });
    }
  }
  return out;
}

function buildProducts(): ProductRow[] {
  const out: ProductRow[] = [];
  for (const line of PRODUCT_LINES) {
    for (const sku of PRODUCT_SKUS) {
      out.push({ id: PRODUCT_ID_BASE + out.length, name: `${line.brand} ${sku.suffix}`, group: line.group });
    }
  }
  return out;
}

function productIndex(line: number, role: SkuRole): number {
  return line * PRODUCT_SKUS.length + PRODUCT_SKUS.findIndex((s) => s.role === role);
}

function buildCampaigns(gateways: readonly GatewayRow[]): CampaignRow[] {
  const rng = new Prng(WORLD_SEED, "campaigns");
  const out: CampaignRow[] = [];
  const byCapacity = new WeightedSampler(gateways.map((g) => g.capacity));
  PRODUCT_LINES.forEach((line, li) => {
    const channels = rng.shuffled(CAMPAIGN_CHANNELS);
    let ch = 0;
    for (const { type, count } of CAMPAIGNS_PER_LINE) {
      for (let k = 0; k < count; k++) {
        const channel = channels[ch++ % channels.length] ?? "Direct";
        const [cpaLo, cpaHi] = CPA_RANGES[type];
        let initialProduct: number;
        let rebillProduct: number;
        let initialPrices: number[];
        let rebillPrice: number;
        if (type === "Trial") {
          initialProduct = productIndex(li, "trial");
          rebillProduct = productIndex(li, "monthly");
          // Half the trial campaigns A/B-test two trial prices.
          initialPrices = rng.chance(0.5) ? [...PRICE_POINTS.trial] : [rng.pick(PRICE_POINTS.trial)];
          rebillPrice = rng.pick(PRICE_POINTS.trialRebill);
        } else if (type === "Continuity") {
          initialProduct = rebillProduct = productIndex(li, "subscription");
          rebillPrice = rng.pick(PRICE_POINTS.continuity);
          initialPrices = [rebillPrice];
        } else {
          const bundle = rng.chance(0.5);
          initialProduct = rebillProduct = productIndex(li, bundle ? "bundle" : "single");
          initialPrices = [rng.pick(bundle ? PRICE_POINTS.bundle : PRICE_POINTS.single)];
          rebillPrice = 0;
        }
        // Each campaign routes over a pool of 4-6 MIDs, chosen by capacity; campaign i always
        // includes MID i mod 20, so every MID carries enough traffic to compare.
        const poolSize = rng.range(4, 6);
        const pool: number[] = [out.length % gateways.length];
        while (pool.length < poolSize) {
          const g = byCapacity.sample(rng);
          if (!pool.includes(g)) pool.push(g);
        }
        pool.sort((a, b) => a - b);
        out.push({
          id: CAMPAIGN_ID_BASE + out.length,
          name: `${line.brand} ${type} - ${channel}`,
          type,
          cpaCents: Math.round(rng.range(cpaLo, cpaHi) / 50) * 50,
          initialSalesType: type === "Straight Sale" ? ST_STRAIGHT : ST_INITIALS,
          initialProduct,
          initialPrices,
          rebillProduct,
          rebillPrice,
          firstRebillDays: FIRST_REBILL_DAYS[type],
          weight: lognormalMeanOne(rng, 0.6),
          pool,
          poolSampler: new WeightedSampler(pool.map((g) => (gateways[g]?.capacity ?? 1) * (1 + rng.next()))),
        });
      }
    }
  });
  return out;
}

function buildBanks(): BankRow[] {
  const rng = new Prng(WORLD_SEED, "banks");
  return BANKS.map((b) => {
    const profile = BANK_KIND_PROFILES[b.kind];
    return {
      name: b.name,
      approval: profile.approval + BANK_SIGMA * rng.normal(),
      risk: profile.risk * lognormalMeanOne(rng, 0.35),
    };
  });
}

function buildBins(): BinRow[] {
  const rng = new Prng(WORLD_SEED, "bins");
  // Every bank gets a floor of BINs; the rest follow traffic share, flattened (big issuers have
  // many BINs, but not proportionally many).
  const floor = 8;
  const counts = apportion(BIN_COUNT - floor * BANKS.length, BANKS.map((b) => Math.pow(b.share, 0.7))).map((n) => n + floor);
  const used = new Set<string>();
  const out: BinRow[] = [];
  BANKS.forEach((bank, bi) => {
    const profile = BANK_KIND_PROFILES[bank.kind];
    const rows: Omit<BinRow, "weight">[] = [];
    for (const p of PINNED_BINS) {
      if (p.bank !== bank.name) continue;
      used.add(p.bin);
      rows.push({ bin: p.bin, bank: bi, brand: p.brand, type: p.type });
    }
    while (rows.length < (counts[bi] ?? floor)) {
      const brand = pickWeighted(rng, CARD_BRANDS, profile.brands);
      const type = pickWeighted(rng, CARD_TYPES, profile.types);
      let bin = binFor(rng, brand);
      while (used.has(bin)) bin = binFor(rng, brand);
      used.add(bin);
      rows.push({ bin, bank: bi, brand, type });
    }
    // Traffic within a bank is concentrated on a few BINs.
    const w = rows.map(() => Math.exp(rng.normal()));
    const wsum = w.reduce((a, b) => a + b, 0);
    rows.forEach((r, k) => out.push({ ...r, weight: (bank.share * (w[k] ?? 0)) / wsum }));
  });
  return out.sort((a, b) => (a.bin < b.bin ? -1 : a.bin > b.bin ? 1 : 0));
}

function buildSubAffiliates(): SubAffiliateRow[] {
  const rng = new Prng(WORLD_SEED, "affiliates");
  // A few affiliates send most of the traffic (Zipf-like), in no particular id order.
  const ranks = rng.shuffled(Array.from({ length: AFFILIATE_COUNT }, (_, i) => i));
  const out: SubAffiliateRow[] = [];
  for (let a = 0; a < AFFILIATE_COUNT; a++) {
    const affid = `AFF${AFFILIATE_ID_BASE + a}`;
    const affWeight = 1 / Math.pow((ranks[a] ?? 0) + 1, 0.9);
    const retention = Math.min(1.15, Math.max(0.8, 1 + 0.08 * rng.normal()));
    const risk = lognormalMeanOne(rng, 0.35);
    const sources = rng.shuffled(SUB_AFFILIATE_SOURCES).slice(0, rng.range(2, 5));
    const shares = sources.map(() => 0.2 + rng.next());
    const total = shares.reduce((x, y) => x + y, 0);
    sources.forEach((src, k) => {
      out.push({ affid, subAffid: `${AFFILIATE_ID_BASE + a}_${src}`, weight: (affWeight * (shares[k] ?? 0)) / total, retention, risk });
    });
  }
  return out;
}

function buildWorld(): World {
  const gateways = buildGateways();
  const products = buildProducts();
  const campaigns = buildCampaigns(gateways);
  const banks = buildBanks();
  const bins = buildBins();
  const subAffiliates = buildSubAffiliates();
  const G = gateways.length;
  const rng = new Prng(WORLD_SEED, "effects");
  const affinity = new Float64Array(banks.length * G);
  for (let i = 0; i < affinity.length; i++) affinity[i] = AFFINITY_SIGMA * rng.normal();
  const initialLogit = new Float64Array(bins.length * G);
  const rebillLogit = new Float64Array(bins.length * G);
  const binRisk = new Float64Array(bins.length);
  bins.forEach((b, bi) => {
    const bank = banks[b.bank];
    if (!bank) throw new Error("BIN without bank");
    const binEffect = bank.approval + BIN_SIGMA * rng.normal();
    binRisk[bi] = bank.risk * CARD_TYPE_RISK[b.type];
    for (let g = 0; g < G; g++) {
      const common = binEffect + (gateways[g]?.approval ?? 0) + (affinity[b.bank * G + g] ?? 0);
      initialLogit[bi * G + g] = BASE_LOGIT_INITIAL + common + CARD_TYPE_LOGIT[b.type].initial;
      rebillLogit[bi * G + g] = BASE_LOGIT_REBILL + common + CARD_TYPE_LOGIT[b.type].rebill;
    }
  });
  return { gateways, products, campaigns, banks, bins, subAffiliates, initialLogit, rebillLogit, binRisk };
}

// ---------------------------------------------------------------------------------------------
// Staging: INTEGER columns, several small fields packed into one

/** Bit layout of a packed INTEGER column; the same object packs in JS and unpacks in SQL. */
class BitLayout<K extends string> {
  readonly shift: Readonly<Record<K, number>>;
  readonly max: Readonly<Record<K, number>>;

  constructor(widths: Readonly<Record<K, number>>) {
    const shift = {} as Record<K, number>;
    const max = {} as Record<K, number>;
    let at = 0;
    for (const key of Object.keys(widths) as K[]) {
      shift[key] = at;
      max[key] = 2 ** widths[key] - 1;
      at += widths[key];
    }
    // Bit 31 is the sign bit of the INTEGER column; keep clear of it.
    if (at > 31) throw new Error(`bit layout needs ${at} bits`);
    this.shift = shift;
    this.max = max;
  }

  sql(column: string, key: K): string {
    return `((${column} >> ${this.shift[key]}) & ${this.max[key]})`;
  }
}

/** attempts: second of day, attempt number, cascade and approved flags, sales type, gateway index. */
const PACK_A = new BitLayout({ sod: 17, attemptNo: 3, cascade: 1, approved: 1, salesType: 2, gateway: 5 });
/** attempts and customers: billing cycle, campaign, product and sub-affiliate indexes. */
const PACK_B = new BitLayout({ cycle: 8, campaign: 6, product: 5, sub: 8 });

const STAGES = {
  customers: ["customer_id", "initial_day", "price", "b"],
  attempts: ["attempt_id", "order_id", "customer_id", "day", "initial_day", "amount", "bin", "a", "b"],
  refunds: ["refund_id", "attempt_id", "day", "amount", "type"],
  chargebacks: ["chargeback_id", "attempt_id", "day", "amount"],
  alerts: ["alert_id", "attempt_id", "day", "amount", "type"],
} as const;
type StageName = keyof typeof STAGES;

const stageTable = (name: StageName): string => `gen_stage_${name}`;

/** Rows collect in typed columns and go to the appender one full data chunk at a time. */
class Stage<C extends string> {
  readonly cols: Readonly<Record<C, Int32Array>>;
  private readonly list: Int32Array[];
  private readonly types: DuckDBType[];
  private n = 0;
  private closed = false;

  constructor(
    private readonly appender: DuckDBAppender,
    names: readonly C[],
    private readonly chunkSize: number,
  ) {
    const cols = {} as Record<C, Int32Array>;
    this.list = names.map((c) => (cols[c] = new Int32Array(chunkSize)));
    this.cols = cols;
    this.types = names.map(() => INTEGER);
  }

  /** Index of the next row in `cols`; the caller fills every column at it. */
  row(): number {
    if (this.n === this.chunkSize) this.flush();
    return this.n++;
  }

  flush(): void {
    const n = this.n;
    if (n === 0) return;
    const chunk = DuckDBDataChunk.create(this.types, n);
    this.list.forEach((values, c) => {
      const vector = chunk.getColumnVector(c);
      for (let r = 0; r < n; r++) vector.setItem(r, values[r] ?? 0);
      vector.flush();
    });
    this.appender.appendDataChunk(chunk);
    this.n = 0;
  }

  close(): void {
    this.flush();
    this.appender.flushSync();
    this.closeAppender();
  }

  /** Releases the appender after a failure; the transaction's rollback discards its rows. */
  dispose(): void {
    try {
      this.closeAppender();
    } catch {
      // Already failing; the original error is the one worth reporting.
    }
  }

  private closeAppender(): void {
    if (this.closed) return;
    this.closed = true;
    this.appender.closeSync();
  }
}

type Stages = { [K in StageName]: Stage<(typeof STAGES)[K][number]> };

async function openStages(conn: DuckDBConnection): Promise<Stages> {
  const chunkSize = DuckDBVector.standardSize();
  const open = async <K extends StageName>(name: K): Promise<Stage<(typeof STAGES)[K][number]>> => {
    const cols = STAGES[name];
    await conn.run(`CREATE OR REPLACE TEMP TABLE ${stageTable(name)} (${cols.map((c) => `${c} INTEGER NOT NULL`).join(", ")})`);
    return new Stage(await conn.createAppender(stageTable(name)), cols, chunkSize);
  };
  return {
    customers: await open("customers"),
    attempts: await open("attempts"),
    refunds: await open("refunds"),
    chargebacks: await open("chargebacks"),
    alerts: await open("alerts"),
  };
}

// ---------------------------------------------------------------------------------------------
// The simulation

/** Ids live in INTEGER staging columns. */
const MAX_ID = 2 ** 31 - 1;

const EV_REFUND = 0;
const EV_CHARGEBACK = 1;
const EV_ALERT = 2;

class Simulation {
  private readonly rng: Prng;
  private readonly G: number;
  private readonly campaignSampler: WeightedSampler;
  private readonly subSampler: WeightedSampler;
  private readonly binSampler: WeightedSampler;
  private readonly hourSampler = new WeightedSampler(HOURLY_WEIGHTS);
  private readonly alertSamplers: Readonly<Record<CardBrand, WeightedSampler>>;
  private readonly gatewayRisk: Float64Array;
  private readonly subRisk: Float64Array;
  private readonly subRetention: Float64Array;
  private readonly binBrand: CardBrand[];

  // Per-customer state, indexed by customer_id - 1.
  private readonly custCampaign: Uint8Array;
  private readonly custSub: Uint8Array;
  private readonly custBin: Uint16Array;
  private readonly custInitialDay: Int32Array;
  private readonly custQuality: Float32Array;

  /** Rebill attempts due on a day: [customer, orderId (0 = new order), cycle, attemptNo, previous gateway]. */
  private readonly dueOrders = new Map<number, number[]>();
  /** Refunds, chargebacks and alerts dated on a day: [kind, attemptId, amount, subtype]. */
  private readonly dueEvents = new Map<number, number[]>();

  customers = 0;
  private orders = 0;
  attempts = 0;
  refunds = 0;
  chargebacks = 0;
  alerts = 0;

  constructor(
    private readonly world: World,
    private readonly stages: Stages,
    seed: number,
    private readonly endDay: number,
    totalCustomers: number,
  ) {
    this.rng = new Prng(seed, "facts");
    this.G = world.gateways.length;
    this.campaignSampler = new WeightedSampler(world.campaigns.map((c) => c.weight));
    this.subSampler = new WeightedSampler(world.subAffiliates.map((s) => s.weight));
    this.binSampler = new WeightedSampler(world.bins.map((b) => b.weight));
    const alertSampler = (brand: CardBrand) => new WeightedSampler(ALERT_TYPES.map((t) => ALERT_MIX[brand][t]));
    this.alertSamplers = { VISA: alertSampler("VISA"), MASTERCARD: alertSampler("MASTERCARD"), AMEX: alertSampler("AMEX"), DISCOVER: alertSampler("DISCOVER") };
    this.gatewayRisk = Float64Array.from(world.gateways, (g) => g.risk);
    this.subRisk = Float64Array.from(world.subAffiliates, (s) => s.risk);
    this.subRetention = Float64Array.from(world.subAffiliates, (s) => s.retention);
    this.binBrand = world.bins.map((b) => b.brand);
    this.custCampaign = new Uint8Array(totalCustomers);
    this.custSub = new Uint8Array(totalCustomers);
    this.custBin = new Uint16Array(totalCustomers);
    this.custInitialDay = new Int32Array(totalCustomers);
    this.custQuality = new Float32Array(totalCustomers);
  }

  /** One calendar day: due rebills and retries, then new customers, then the day's events. */
  runDay(day: number, newCustomers: number): void {
    const due = this.dueOrders.get(day);
    if (due) {
      this.dueOrders.delete(day);
      for (let i = 0; i < due.length; i += 5) {
        this.rebillAttempt(day, due[i] ?? 0, due[i + 1] ?? 0, due[i + 2] ?? 0, due[i + 3] ?? 0, due[i + 4] ?? 0);
      }
    }
    for (let k = 0; k < newCustomers; k++) this.newCustomer(day);
    const events = this.dueEvents.get(day);
    if (events) {
      this.dueEvents.delete(day);
      for (let i = 0; i < events.length; i += 4) this.emitEvent(day, events[i] ?? 0, events[i + 1] ?? 0, events[i + 2] ?? 0, events[i + 3] ?? 0);
    }
  }

  private newCustomer(day: number): void {
    const rng = this.rng;
    const c = this.customers++;
    const campaignIdx = this.campaignSampler.sample(rng);
    const campaign = this.world.campaigns[campaignIdx];
    if (!campaign) throw new Error("campaign index out of range");
    const sub = this.subSampler.sample(rng);
    const bin = this.binSampler.sample(rng);
    const quality = CUSTOMER_SIGMA * rng.normal();
    const prices = campaign.initialPrices;
    const price = prices.length === 1 ? (prices[0] ?? 0) : (prices[rng.int(prices.length)] ?? 0);
    this.custCampaign[c] = campaignIdx;
    this.custSub[c] = sub;
    this.custBin[c] = bin;
    this.custInitialDay[c] = day;
    this.custQuality[c] = quality;

    const cs = this.stages.customers;
    const r = cs.row();
    cs.cols.customer_id[r] = c + 1;
    cs.cols.initial_day[r] = day;
    cs.cols.price[r] = price;
    cs.cols.b[r] = this.packB(0, campaignIdx, campaign.initialProduct, sub);

    // The initial order: attempts seconds apart on the same day, cascading through the pool.
    const orderId = this.nextOrderId();
    const salesType = campaign.initialSalesType;
    // Leave room before midnight for the retries, which follow within seconds on the same day.
    let sod = Math.min(this.hourSampler.sample(rng) * 3600 + rng.int(3600), 86399 - 2 * INITIAL_RETRY_DELAY_MAX);
    let gw = campaign.pool[campaign.poolSampler.sample(rng)] ?? 0;
    const base = bin * this.G;
    for (let attemptNo = 1; attemptNo <= 3; attemptNo++) {
      let cascade = false;
      let penalty = 0;
      if (attemptNo > 1) {
        cascade = rng.next() < INITIAL_CASCADE_SHARE;
        if (cascade) gw = this.otherGateway(campaign, gw);
        penalty = (cascade ? INITIAL_RETRY_PENALTY.cascade : INITIAL_RETRY_PENALTY.same)[attemptNo - 2] ?? 0;
        sod += rng.range(INITIAL_RETRY_DELAY_MIN, INITIAL_RETRY_DELAY_MAX);
      }
      const logit = (this.world.initialLogit[base + gw] ?? 0) + quality + penalty;
      const approved = rng.next() * (1 + Math.exp(-logit)) < 1;
      const attemptId = this.emitAttempt(orderId, c, day, sod, attemptNo, cascade, approved, salesType, 0, campaignIdx, campaign.initialProduct, gw, price);
      if (approved) {
        this.onApproved(attemptId, c, day, price, salesType, 0, gw, campaign);
        return;
      }
      if (attemptNo === 3 || rng.next() >= (INITIAL_RETRY_CHANCE[attemptNo - 1] ?? 0)) return;
    }
  }

  private rebillAttempt(day: number, c: number, orderIdIn: number, cycle: number, attemptNo: number, prevGw: number): void {
    const rng = this.rng;
    const campaignIdx = this.custCampaign[c] ?? 0;
    const campaign = this.world.campaigns[campaignIdx];
    if (!campaign) throw new Error("campaign index out of range");
    const orderId = orderIdIn === 0 ? this.nextOrderId() : orderIdIn;
    let gw = prevGw;
    let cascade = false;
    let penalty = 0;
    if (attemptNo === 1) {
      if (rng.next() < REBILL_REROUTE_SHARE) gw = campaign.pool[campaign.poolSampler.sample(rng)] ?? 0;
    } else {
      cascade = rng.next() < REBILL_CASCADE_SHARE;
      if (cascade) gw = this.otherGateway(campaign, gw);
      penalty = (cascade ? REBILL_RETRY_PENALTY.cascade : REBILL_RETRY_PENALTY.same)[attemptNo - 2] ?? 0;
    }
    const sod = REBILL_BATCH_WINDOW[0] + rng.int(REBILL_BATCH_WINDOW[1] - REBILL_BATCH_WINDOW[0]);
    const bin = this.custBin[c] ?? 0;
    const logit = (this.world.rebillLogit[bin * this.G + gw] ?? 0) + (this.custQuality[c] ?? 0) + penalty;
    const approved = rng.next() * (1 + Math.exp(-logit)) < 1;
    const price = campaign.rebillPrice;
    const attemptId = this.emitAttempt(orderId, c, day, sod, attemptNo, cascade, approved, ST_REBILLS, cycle, campaignIdx, campaign.rebillProduct, gw, price);
    if (approved) {
      this.onApproved(attemptId, c, day, price, ST_REBILLS, cycle, gw, campaign);
    } else if (attemptNo < 3 && rng.next() < (REBILL_RETRY_CHANCE[attemptNo - 1] ?? 0)) {
      const offset = (REBILL_RETRY_OFFSETS[attemptNo - 1] ?? 0) - (attemptNo === 1 ? 0 : (REBILL_RETRY_OFFSETS[attemptNo - 2] ?? 0));
      this.scheduleOrder(day + offset, c, orderId, cycle, attemptNo + 1, gw);
    }
  }

  /** A gateway of the campaign's pool other than `gw` (cascades must change gateway). */
  private otherGateway(campaign: CampaignRow, gw: number): number {
    for (let tries = 0; tries < 8; tries++) {
      const g = campaign.pool[campaign.poolSampler.sample(this.rng)] ?? 0;
      if (g !== gw) return g;
    }
    // The pool is dominated by `gw`: fall back to any other MID.
    return (gw + 1 + this.rng.int(this.G - 1)) % this.G;
  }

  private nextOrderId(): number {
    if (this.orders >= MAX_ID) throw new RangeError("too many orders for one data set");
    return ++this.orders;
  }

  private packB(cycle: number, campaign: number, product: number, sub: number): number {
    return (
      (cycle << PACK_B.shift.cycle) |
      (campaign << PACK_B.shift.campaign) |
      (product << PACK_B.shift.product) |
      (sub << PACK_B.shift.sub)
    );
  }

  private emitAttempt(
    orderId: number,
    c: number,
    day: number,
    sod: number,
    attemptNo: number,
    cascade: boolean,
    approved: boolean,
    salesType: number,
    cycle: number,
    campaign: number,
    product: number,
    gw: number,
    amount: number,
  ): number {
    if (this.attempts >= MAX_ID) throw new RangeError("too many attempts for one data set");
    const id = ++this.attempts;
    const st = this.stages.attempts;
    const r = st.row();
    const cols = st.cols;
    cols.attempt_id[r] = id;
    cols.order_id[r] = orderId;
    cols.customer_id[r] = c + 1;
    cols.day[r] = day;
    cols.initial_day[r] = this.custInitialDay[c] ?? day;
    cols.amount[r] = amount;
    cols.bin[r] = this.custBin[c] ?? 0;
    cols.a[r] =
      (sod << PACK_A.shift.sod) |
      (attemptNo << PACK_A.shift.attemptNo) |
      ((cascade ? 1 : 0) << PACK_A.shift.cascade) |
      ((approved ? 1 : 0) << PACK_A.shift.approved) |
      (salesType << PACK_A.shift.salesType) |
      (gw << PACK_A.shift.gateway);
    cols.b[r] = this.packB(cycle, campaign, product, this.custSub[c] ?? 0);
    return id;
  }

  /**
   * Decides what follows an approval: a refund, alert or chargeback (parked until its date), and,
   * for subscriptions, whether the customer is billed again.
   */
  private onApproved(attemptId: number, c: number, day: number, amount: number, salesType: number, cycle: number, gw: number, campaign: CampaignRow): void {
    const rng = this.rng;
    const bin = this.custBin[c] ?? 0;
    const sub = this.custSub[c] ?? 0;
    const stName = SALES_TYPES[salesType] ?? "Initials";
    const risk = (this.world.binRisk[bin] ?? 1) * (this.gatewayRisk[gw] ?? 1) * (this.subRisk[sub] ?? 1) * SALES_TYPE_RISK[stName];
    const pAlert = ALERT_RATE * risk;
    const pRefund = CS_REFUND_RATE[stName];
    const pCb = CB_RATE * risk;
    let disputed = true;
    let u = rng.next();
    if (u < pAlert) {
      this.alertFlow(attemptId, day, amount, bin);
    } else if ((u -= pAlert) < pRefund) {
      this.csRefundFlow(attemptId, day, amount);
    } else if (u - pRefund < pCb) {
      this.scheduleEvent(day + this.chargebackLag(), EV_CHARGEBACK, attemptId, amount, 0);
    } else {
      disputed = false;
    }

    // A customer who asked for a refund or disputed the charge is cancelled.
    if (disputed || campaign.firstRebillDays === null) return;
    const retention = (cycle === 0 ? RETENTION_FIRST : RETENTION_LATER) * (this.subRetention[sub] ?? 1);
    if (rng.next() >= Math.min(0.97, retention)) return;
    const next = day + (cycle === 0 ? campaign.firstRebillDays : REBILL_INTERVAL_DAYS);
    this.scheduleOrder(next, c, 0, cycle + 1, 1, gw);
  }

  private alertFlow(attemptId: number, day: number, amount: number, bin: number): void {
    const rng = this.rng;
    const type = this.alertSamplers[this.binBrand[bin] ?? "VISA"].sample(rng);
    const alertLag = clampInt(Math.exp(Math.log(10) + 0.8 * rng.normal()), 1, MAX_ALERT_LAG_DAYS);
    const alertDay = day + alertLag;
    this.scheduleEvent(alertDay, EV_ALERT, attemptId, amount, type);
    const refunded = rng.next() < ALERT_REFUND_CHANCE[ALERT_TYPES[type] ?? "ETHOCA"];
    if (refunded) this.scheduleEvent(alertDay + (rng.next() < 0.6 ? 0 : 1), EV_REFUND, attemptId, amount, RT_ALERT);
    if (rng.next() < (refunded ? CB_AFTER_REFUNDED_ALERT : CB_AFTER_UNREFUNDED_ALERT)) {
      const cbDay = Math.min(alertDay + rng.range(5, 45), day + MAX_CB_LAG_DAYS);
      this.scheduleEvent(cbDay, EV_CHARGEBACK, attemptId, amount, 0);
    }
  }

  private csRefundFlow(attemptId: number, day: number, amount: number): void {
    const rng = this.rng;
    const u = rng.next();
    // Most refunds come within days of the charge.
    const refundDay = day + Math.floor((MAX_CS_REFUND_LAG_DAYS + 1) * u * u);
    const kind = rng.next();
    const refundAmount = kind < 0.65 ? amount : kind < 0.85 ? Math.round(amount / 2) : Math.max(1, Math.round(amount * (0.2 + 0.6 * rng.next())));
    this.scheduleEvent(refundDay, EV_REFUND, attemptId, refundAmount, RT_CS);
    if (rng.next() < CB_AFTER_CS_REFUND) {
      this.scheduleEvent(Math.min(refundDay + rng.range(5, 40), day + MAX_CB_LAG_DAYS), EV_CHARGEBACK, attemptId, amount, 0);
    }
  }

  /** Days from the charge to the chargeback: mostly 20-60 (log-normal around 35), some anywhere in 0-120. */
  private chargebackLag(): number {
    const rng = this.rng;
    if (rng.next() < 0.15) return rng.range(0, MAX_CB_LAG_DAYS);
    return clampInt(Math.exp(Math.log(35) + 0.45 * rng.normal()), 0, MAX_CB_LAG_DAYS);
  }

  private scheduleOrder(day: number, c: number, orderId: number, cycle: number, attemptNo: number, gw: number): void {
    if (day > this.endDay) return;
    let list = this.dueOrders.get(day);
    if (!list) this.dueOrders.set(day, (list = []));
    list.push(c, orderId, cycle, attemptNo, gw);
  }

  private scheduleEvent(day: number, kind: number, attemptId: number, amount: number, subtype: number): void {
    if (day > this.endDay) return;
    let list = this.dueEvents.get(day);
    if (!list) this.dueEvents.set(day, (list = []));
    list.push(kind, attemptId, amount, subtype);
  }

  private emitEvent(day: number, kind: number, attemptId: number, amount: number, subtype: number): void {
    if (kind === EV_REFUND) {
      const s = this.stages.refunds;
      const r = s.row();
      s.cols.refund_id[r] = ++this.refunds;
      s.cols.attempt_id[r] = attemptId;
      s.cols.day[r] = day;
      s.cols.amount[r] = amount;
      s.cols.type[r] = subtype;
    } else if (kind === EV_CHARGEBACK) {
      const s = this.stages.chargebacks;
      const r = s.row();
      s.cols.chargeback_id[r] = ++this.chargebacks;
      s.cols.attempt_id[r] = attemptId;
      s.cols.day[r] = day;
      s.cols.amount[r] = amount;
    } else {
      const s = this.stages.alerts;
      const r = s.row();
      s.cols.alert_id[r] = ++this.alerts;
      s.cols.attempt_id[r] = attemptId;
      s.cols.day[r] = day;
      s.cols.amount[r] = amount;
      s.cols.type[r] = subtype;
    }
  }
}

function clampInt(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(x)));
}

/** New customers per day: weekday seasonality, growth from 0.85x to 1.15x over the range, 5% noise. */
function dailyVolumes(opts: GenerateOptions, startDay: number): Int32Array {
  const rng = new Prng(opts.seed, "volume");
  const out = new Int32Array(opts.days);
  for (let i = 0; i < opts.days; i++) {
    const day = startDay + i;
    const weekday = (((day + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday; 0 = Sunday
    const growth = opts.days > 1 ? 0.85 + (0.3 * i) / (opts.days - 1) : 1;
    const noise = 1 + 0.05 * Math.max(-3, Math.min(3, rng.normal()));
    out[i] = Math.max(0, Math.round(opts.ordersPerDay * (WEEKDAY_FACTORS[weekday] ?? 1) * growth * noise));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Loading

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const sqlList = (values: readonly (string | number)[]): string =>
  `[${values.map((v) => (typeof v === "number" ? String(v) : sqlString(v))).join(", ")}]`;
/** `list[index + 1]`: DuckDB lists are 1-based. */
const lookup = (values: readonly (string | number)[], indexSql: string): string => `${sqlList(values)}[${indexSql} + 1]`;
const asDate = (daySql: string): string => `(DATE '1970-01-01' + ${daySql})`;

async function appendRows(conn: DuckDBConnection, table: string, types: readonly DuckDBType[], columns: readonly (readonly DuckDBValue[])[]): Promise<void> {
  const appender = await conn.createAppender(table);
  const size = DuckDBVector.standardSize();
  const rows = columns[0]?.length ?? 0;
  for (let from = 0; from < rows; from += size) {
    const chunk = DuckDBDataChunk.create(types);
    chunk.setColumns(columns.map((col) => col.slice(from, from + size)));
    appender.appendDataChunk(chunk);
  }
  appender.flushSync();
  appender.closeSync();
}

async function loadReferenceTables(conn: DuckDBConnection, world: World): Promise<void> {
  const { gateways, campaigns, products, banks, bins } = world;
  await appendRows(conn, "gateways", [INTEGER, VARCHAR, VARCHAR, VARCHAR], [
    gateways.map((g) => g.id),
    gateways.map((g) => g.alias),
    gateways.map((g) => g.acquirer),
    gateways.map((g) => g.mcc),
  ]);
  await appendRows(conn, "campaigns", [INTEGER, VARCHAR, VARCHAR, BIGINT], [
    campaigns.map((c) => c.id),
    campaigns.map((c) => c.name),
    campaigns.map((c) => c.type),
    campaigns.map((c) => BigInt(c.cpaCents)),
  ]);
  await appendRows(conn, "products", [INTEGER, VARCHAR, VARCHAR], [
    products.map((p) => p.id),
    products.map((p) => p.name),
    products.map((p) => p.group),
  ]);
  await appendRows(conn, "bins", [VARCHAR, VARCHAR, VARCHAR, VARCHAR], [
    bins.map((b) => b.bin),
    bins.map((b) => banks[b.bank]?.name ?? ""),
    bins.map((b) => b.brand),
    bins.map((b) => b.type),
  ]);
}

async function loadFactTables(tx: Tx, world: World): Promise<void> {
  const campaignIds = world.campaigns.map((c) => c.id);
  const productIds = world.products.map((p) => p.id);
  const gatewayIds = world.gateways.map((g) => g.id);
  const affids = world.subAffiliates.map((s) => s.affid);
  const subAffids = world.subAffiliates.map((s) => s.subAffid);
  const bins = world.bins.map((b) => b.bin);
  const b = (key: "cycle" | "campaign" | "product" | "sub") => PACK_B.sql("b", key);
  const a = (key: "sod" | "attemptNo" | "cascade" | "approved" | "salesType" | "gateway") => PACK_A.sql("a", key);

  await tx.run(`INSERT INTO customers
    SELECT customer_id, ${asDate("initial_day")}, ${lookup(campaignIds, b("campaign"))}, ${lookup(productIds, b("product"))},
           ${lookup(affids, b("sub"))}, ${lookup(subAffids, b("sub"))}, price
    FROM ${stageTable("customers")}`);
  await tx.run(`INSERT INTO attempts
    SELECT attempt_id, order_id, customer_id,
           make_timestamp((day::BIGINT * 86400 + ${a("sod")}) * 1000000),
           ${asDate("day")}, ${a("attemptNo")}, ${a("cascade")} = 1, ${a("approved")} = 1, amount,
           ${b("cycle")}, ${lookup(SALES_TYPES, a("salesType"))},
           ${lookup(campaignIds, b("campaign"))}, ${lookup(productIds, b("product"))}, ${lookup(gatewayIds, a("gateway"))},
           ${lookup(bins, "bin")}, ${lookup(affids, b("sub"))}, ${lookup(subAffids, b("sub"))},
           amount, ${asDate("initial_day")}
    FROM ${stageTable("attempts")}`);
  await tx.run(`INSERT INTO refunds
    SELECT refund_id, attempt_id, ${asDate("day")}, amount, ${lookup(REFUND_TYPES, "type")} FROM ${stageTable("refunds")}`);
  await tx.run(`INSERT INTO chargebacks
    SELECT chargeback_id, attempt_id, ${asDate("day")}, amount FROM ${stageTable("chargebacks")}`);
  await tx.run(`INSERT INTO alerts
    SELECT alert_id, attempt_id, ${asDate("day")}, amount, ${lookup(ALERT_TYPES, "type")} FROM ${stageTable("alerts")}`);
}

/** Replaced by every generation; api_clients and schema_migrations are never touched. */
const REPLACED_TABLES = ["alerts", "chargebacks", "refunds", "attempts", "customers", "bins", "products", "campaigns", "gateways", "dataset_info"] as const;

/** The packed staging fields must hold every index the world and the date range can produce. */
function assertLayoutFits(world: World, days: number): void {
  const fits: [string, number, number][] = [
    ["gateways", world.gateways.length - 1, PACK_A.max.gateway],
    ["campaigns", world.campaigns.length - 1, PACK_B.max.campaign],
    ["products", world.products.length - 1, PACK_B.max.product],
    ["sub-affiliates", world.subAffiliates.length - 1, PACK_B.max.sub],
    // A subscriber is billed at most once per 14 days (the shortest rebill interval).
    ["billing cycles", Math.ceil(days / 14), PACK_B.max.cycle],
    ["sales types", SALES_TYPES.length - 1, PACK_A.max.salesType],
  ];
  for (const [what, needed, max] of fits) {
    if (needed > max) throw new Error(`generator staging layout cannot hold ${what} (${needed} > ${max})`);
  }
}

function validate(opts: GenerateOptions): void {
  const { days, ordersPerDay, seed, endDate } = opts;
  if (!Number.isInteger(days) || days < 1 || days > GENERATE_LIMITS.maxDays) {
    throw new RangeError(`days must be an integer from 1 to ${GENERATE_LIMITS.maxDays}, got ${days}`);
  }
  if (!Number.isFinite(ordersPerDay) || ordersPerDay < 0 || ordersPerDay > GENERATE_LIMITS.maxOrdersPerDay) {
    throw new RangeError(`ordersPerDay must be a number from 0 to ${GENERATE_LIMITS.maxOrdersPerDay}, got ${ordersPerDay}`);
  }
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (typeof endDate !== "string" || !isCalendarDate(endDate)) throw new RangeError(`endDate must be a YYYY-MM-DD date, got ${endDate}`);
}

let worldCache: World | undefined;

/**
 * Replaces all payment and reference data with a synthetic data set (api_clients untouched).
 * Assumes migrations were applied. Same options ⇒ identical table contents.
 */
export async function generate(db: Database, opts: GenerateOptions): Promise<GenerateSummary> {
  validate(opts);
  const started = performance.now();
  const progress = opts.onProgress ?? (() => undefined);
  const world = (worldCache ??= buildWorld());
  assertLayoutFits(world, opts.days);
  const endDay = toEpochDay(opts.endDate);
  const startDay = endDay - (opts.days - 1);
  const volumes = dailyVolumes(opts, startDay);
  const totalCustomers = volumes.reduce((a, b) => a + b, 0);
  if (totalCustomers > MAX_ID) throw new RangeError("too many customers for one data set");

  const summary = await db.transaction(async (tx) => {
    const conn = tx.connection;
    const stages = await openStages(conn);
    try {
      const sim = new Simulation(world, stages, opts.seed, endDay, totalCustomers);
      const every = Math.max(1, Math.round(opts.days / 20));
      for (let i = 0; i < opts.days; i++) {
        sim.runDay(startDay + i, volumes[i] ?? 0);
        if ((i + 1) % every === 0 || i === opts.days - 1) {
          progress(`generated ${fromEpochDay(startDay + i)} (${i + 1}/${opts.days} days, ${sim.attempts.toLocaleString("en-US")} attempts)`);
        }
        // A day is a few tens of milliseconds at most; let other work on the event loop run between days.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      for (const s of Object.values(stages)) s.close();

      progress("replacing tables");
      for (const t of REPLACED_TABLES) await tx.run(`DELETE FROM ${t}`);
      await loadReferenceTables(conn, world);
      await loadFactTables(tx, world);
      const info: [string, string][] = [
        ["seed", String(opts.seed)],
        ["days", String(opts.days)],
        ["orders_per_day", String(opts.ordersPerDay)],
        ["start_date", fromEpochDay(startDay)],
        ["end_date", opts.endDate],
      ];
      for (const [k, v] of info) await tx.run("INSERT INTO dataset_info (key, value) VALUES (?, ?)", [k, v]);
      progress("rebuilding derived tables");
      await rebuildDerived(tx);
      return {
        customers: sim.customers,
        attempts: sim.attempts,
        refunds: sim.refunds,
        chargebacks: sim.chargebacks,
        alerts: sim.alerts,
        startDate: fromEpochDay(startDay),
        endDate: opts.endDate,
      };
    } finally {
      for (const s of Object.values(stages)) s.dispose();
      for (const name of Object.keys(STAGES) as StageName[]) await tx.run(`DROP TABLE IF EXISTS ${stageTable(name)}`).catch(() => undefined);
    }
  });
  // Folds the WAL into the file so it is compact on disk. Best effort: DuckDB refuses a checkpoint
  // while another connection has a transaction open, and the data is committed either way.
  progress("checkpointing");
  await db.checkpoint().catch((err: unknown) => progress(`checkpoint skipped: ${err instanceof Error ? err.message : String(err)}`));
  const seconds = Math.round((performance.now() - started) / 10) / 100;
  progress(`done in ${seconds}s`);
  return { ...summary, seconds };
}
