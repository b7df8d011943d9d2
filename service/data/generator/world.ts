/**
 * The reference world of the synthetic data: gateways, products, campaigns, banks, BINs and
 * sub-affiliates, with the hidden approval and risk effects that the simulation draws against.
 *
 * Separate from the simulation because it does not depend on `seed`: it comes from WORLD_SEED alone,
 * so BINs, gateway ids and routing insights stay valid across regenerations, and `seed` varies only
 * the customers and events (simulation.ts).
 */
import { CARD_BRANDS, CARD_TYPES, SALES_TYPES } from "../../../lib/contract/catalog";
import { Prng, WeightedSampler } from "../prng";
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
  PINNED_BINS,
  PRICE_POINTS,
  PRODUCT_ID_BASE,
  PRODUCT_LINES,
  PRODUCT_SKUS,
  SUB_AFFILIATE_SOURCES,
  type CampaignType,
  type CardBrand,
  type CardType,
  type SkuRole,
} from "../reference-data";

/** Seed of the reference world; changing it changes every BIN, campaign and gateway trait. */
const WORLD_SEED = 20250731;

// Approval is a logistic model; these are log-odds shifts unless said otherwise. The world fixes the
// part that depends on the card and the gateway; the customer and retry effects are the
// simulation's. The bases are calibrated so that, with the bank/BIN/gateway spread below and the
// customer spread of simulation.ts, first-attempt initial approval lands near 72% and first-attempt
// rebill approval near 55%.

const BASE_LOGIT_INITIAL = 0.95;
const BASE_LOGIT_REBILL = -0.15;
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

/** Dispute risk by card type, folded with the bank's into each BIN's `binRisk`. */
const CARD_TYPE_RISK: Readonly<Record<CardType, number>> = { CREDIT: 0.9, DEBIT: 1, PREPAID: 2.2 };

const ST_INITIALS = SALES_TYPES.indexOf("Initials");
const ST_STRAIGHT = SALES_TYPES.indexOf("Straight Sales");

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

export interface CampaignRow {
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

export interface World {
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

export function buildWorld(): World {
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
