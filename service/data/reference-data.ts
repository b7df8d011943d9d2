/**
 * Static lists behind the synthetic data generator: the merchant's world (acquirers and gateways,
 * product lines, campaign channels, affiliates' traffic sources) and the card world (issuing banks
 * and how their portfolios look). Everything random is drawn in generator.ts from these.
 *
 * Names are realistic on purpose (a demo reads better with "JPMORGAN CHASE BANK N.A." than "Bank 7"),
 * but shares and behaviours are invented.
 */
import type { CARD_BRANDS, CARD_TYPES } from "../../lib/contract/catalog";

export type CardBrand = (typeof CARD_BRANDS)[number];
export type CardType = (typeof CARD_TYPES)[number];

export const CAMPAIGN_TYPES = ["Trial", "Continuity", "Straight Sale"] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Acquiring side

export interface AcquirerDef {
  /** Acquiring bank, the `acquirer` dimension. */
  readonly name: string;
  /** Prefix of the gateway aliases ("Wells 03"). */
  readonly short: string;
  /** How many of the 20 gateways (MIDs) the merchant holds at this acquirer. */
  readonly mids: number;
  /** MCC the acquirer boarded the merchant under; high-risk acquirers prefer 5968. */
  readonly mccs: readonly string[];
}

export const ACQUIRERS: readonly AcquirerDef[] = [
  { name: "Wells Fargo Bank N.A.", short: "Wells", mids: 4, mccs: ["5968", "5999"] },
  { name: "Esquire Bank N.A.", short: "Esquire", mids: 3, mccs: ["5968"] },
  { name: "Merrick Bank", short: "Merrick", mids: 3, mccs: ["5968", "5969"] },
  { name: "Elavon (U.S. Bank N.A.)", short: "Elavon", mids: 2, mccs: ["5999"] },
  { name: "Chesapeake Bank", short: "Chesapeake", mids: 2, mccs: ["5968", "5969"] },
  { name: "Axiom Bank N.A.", short: "Axiom", mids: 2, mccs: ["5969"] },
  { name: "Synovus Bank", short: "Synovus", mids: 2, mccs: ["5999", "5968"] },
  { name: "Central Bank of St. Louis", short: "CBSL", mids: 2, mccs: ["5968"] },
];

// ---------------------------------------------------------------------------------------------
// Products and campaigns

/** A product line (the `product_group`) sold under one brand. */
export interface ProductLineDef {
  readonly group: string;
  readonly brand: string;
}

export const PRODUCT_LINES: readonly ProductLineDef[] = [
  { group: "Weight Loss", brand: "KetoBurn" },
  { group: "Skin Care", brand: "LuminaSkin" },
  { group: "Joint Health", brand: "FlexiJoint" },
  { group: "Hair & Nails", brand: "KeraVita" },
  { group: "Sleep & Calm", brand: "DreamEase" },
];

/**
 * The SKUs every line has. `role` says which campaign flow uses it: a trial campaign sells the
 * trial SKU and rebills the monthly one; continuity sells and rebills the subscription SKU;
 * straight sales sell the bottles.
 */
export const PRODUCT_SKUS = [
  { suffix: "Trial", role: "trial" },
  { suffix: "Monthly", role: "monthly" },
  { suffix: "Subscribe & Save", role: "subscription" },
  { suffix: "1 Bottle", role: "single" },
  { suffix: "3 Bottles", role: "bundle" },
] as const;
export type SkuRole = (typeof PRODUCT_SKUS)[number]["role"];

export const PRODUCT_ID_BASE = 901;
export const CAMPAIGN_ID_BASE = 101;

/** Campaigns per product line, by type (5 lines x 8 = 40 campaigns). */
export const CAMPAIGNS_PER_LINE: readonly { readonly type: CampaignType; readonly count: number }[] = [
  { type: "Trial", count: 4 },
  { type: "Continuity", count: 2 },
  { type: "Straight Sale", count: 2 },
];

/** Traffic channels, used in campaign names. */
export const CAMPAIGN_CHANNELS = ["Facebook", "Native", "Search", "Email", "YouTube", "TikTok", "Display", "Push"] as const;

/** Price points in cents, by what is being charged. */
export const PRICE_POINTS = {
  trial: [495, 695],
  trialRebill: [7995, 8995],
  continuity: [3995, 4995],
  single: [2995, 3995, 4995],
  bundle: [6995, 8995, 9995],
} as const;

/** CPA payout ranges in cents, by campaign type. */
export const CPA_RANGES: Readonly<Record<CampaignType, readonly [number, number]>> = {
  Trial: [3000, 6000],
  Continuity: [4000, 8000],
  "Straight Sale": [1000, 2500],
};

/** Days from the initial order to the first rebill, by campaign type (later rebills every 30 days). */
export const FIRST_REBILL_DAYS: Readonly<Record<CampaignType, number | null>> = {
  Trial: 14,
  Continuity: 30,
  "Straight Sale": null,
};
export const REBILL_INTERVAL_DAYS = 30;

// ---------------------------------------------------------------------------------------------
// Affiliates

export const AFFILIATE_COUNT = 30;
export const AFFILIATE_ID_BASE = 1001;
/** Traffic-source codes that make up sub-affiliate ids ("1004_fb"). */
export const SUB_AFFILIATE_SOURCES = ["fb", "ig", "tt", "yt", "nat", "srch", "em", "push", "disp", "cb"] as const;

// ---------------------------------------------------------------------------------------------
// Issuing side

export type BankKind =
  | "major"
  | "card_issuer"
  | "subprime"
  | "credit_union"
  | "regional"
  | "prepaid"
  | "neobank"
  | "amex"
  | "discover";

export interface BankDef {
  readonly name: string;
  readonly kind: BankKind;
  /** Relative share of the merchant's card traffic. */
  readonly share: number;
}

export const BANKS: readonly BankDef[] = [
  { name: "JPMORGAN CHASE BANK N.A.", kind: "major", share: 12 },
  { name: "BANK OF AMERICA N.A.", kind: "major", share: 10 },
  { name: "WELLS FARGO BANK N.A.", kind: "major", share: 8 },
  { name: "CITIBANK N.A.", kind: "major", share: 6 },
  { name: "U.S. BANK N.A.", kind: "major", share: 4 },
  { name: "PNC BANK N.A.", kind: "major", share: 3 },
  { name: "TRUIST BANK", kind: "major", share: 3 },
  { name: "TD BANK N.A.", kind: "major", share: 2 },
  { name: "CITIZENS BANK N.A.", kind: "major", share: 1.6 },
  { name: "FIFTH THIRD BANK N.A.", kind: "major", share: 1.6 },
  { name: "REGIONS BANK", kind: "major", share: 1.3 },
  { name: "KEYBANK N.A.", kind: "major", share: 1.2 },
  { name: "THE HUNTINGTON NATIONAL BANK", kind: "major", share: 1.2 },
  { name: "MANUFACTURERS AND TRADERS TRUST COMPANY", kind: "major", share: 1 },
  { name: "BMO BANK N.A.", kind: "major", share: 1 },
  { name: "SANTANDER BANK N.A.", kind: "major", share: 0.8 },
  { name: "HSBC BANK USA N.A.", kind: "major", share: 0.5 },
  { name: "CAPITAL ONE N.A.", kind: "card_issuer", share: 7 },
  { name: "SYNCHRONY BANK", kind: "card_issuer", share: 1.5 },
  { name: "BARCLAYS BANK DELAWARE", kind: "card_issuer", share: 1.2 },
  { name: "GOLDMAN SACHS BANK USA", kind: "card_issuer", share: 0.8 },
  { name: "FIRST NATIONAL BANK OF OMAHA", kind: "card_issuer", share: 0.6 },
  { name: "COMENITY BANK", kind: "card_issuer", share: 0.5 },
  { name: "CREDIT ONE BANK N.A.", kind: "subprime", share: 1.5 },
  { name: "FIRST PREMIER BANK", kind: "subprime", share: 0.6 },
  { name: "MERRICK BANK", kind: "subprime", share: 0.5 },
  { name: "CELTIC BANK", kind: "subprime", share: 0.3 },
  { name: "WEBBANK", kind: "subprime", share: 0.3 },
  { name: "AMERICAN EXPRESS NATIONAL BANK", kind: "amex", share: 5 },
  { name: "DISCOVER BANK", kind: "discover", share: 3 },
  { name: "NAVY FEDERAL CREDIT UNION", kind: "credit_union", share: 2.5 },
  { name: "USAA FEDERAL SAVINGS BANK", kind: "credit_union", share: 2 },
  { name: "PENTAGON FEDERAL CREDIT UNION", kind: "credit_union", share: 0.8 },
  { name: "STATE EMPLOYEES CREDIT UNION", kind: "credit_union", share: 0.5 },
  { name: "BOEING EMPLOYEES CREDIT UNION", kind: "credit_union", share: 0.4 },
  { name: "SCHOOLSFIRST FEDERAL CREDIT UNION", kind: "credit_union", share: 0.4 },
  { name: "ALLIANT CREDIT UNION", kind: "credit_union", share: 0.3 },
  { name: "COMERICA BANK", kind: "regional", share: 0.5 },
  { name: "FIRST CITIZENS BANK & TRUST COMPANY", kind: "regional", share: 0.5 },
  { name: "ALLY BANK", kind: "regional", share: 0.6 },
  { name: "ZIONS BANCORPORATION N.A.", kind: "regional", share: 0.4 },
  { name: "ARVEST BANK", kind: "regional", share: 0.4 },
  { name: "FIRST HORIZON BANK", kind: "regional", share: 0.4 },
  { name: "FROST BANK", kind: "regional", share: 0.3 },
  { name: "UMB BANK N.A.", kind: "regional", share: 0.3 },
  { name: "COMMERCE BANK", kind: "regional", share: 0.3 },
  { name: "OLD NATIONAL BANK", kind: "regional", share: 0.3 },
  { name: "SYNOVUS BANK", kind: "regional", share: 0.3 },
  { name: "CADENCE BANK", kind: "regional", share: 0.3 },
  { name: "WEBSTER BANK N.A.", kind: "regional", share: 0.3 },
  { name: "VALLEY NATIONAL BANK", kind: "regional", share: 0.2 },
  { name: "EAST WEST BANK", kind: "regional", share: 0.2 },
  { name: "THE BANCORP BANK N.A.", kind: "prepaid", share: 1.6 },
  { name: "GREEN DOT BANK", kind: "prepaid", share: 1.2 },
  { name: "PATHWARD N.A.", kind: "prepaid", share: 1.2 },
  { name: "SUTTON BANK", kind: "prepaid", share: 1 },
  { name: "CENTRAL BANK OF KANSAS CITY", kind: "prepaid", share: 0.4 },
  { name: "STRIDE BANK N.A.", kind: "neobank", share: 1.5 },
  { name: "VARO BANK N.A.", kind: "neobank", share: 0.4 },
  { name: "COASTAL COMMUNITY BANK", kind: "neobank", share: 0.4 },
];

export const BIN_COUNT = 2000;

/**
 * What a kind of issuer looks like: which brands and card types its BINs carry, and how its
 * cardholders behave. `approval` is a shift of the approval log-odds; `risk` multiplies dispute rates.
 */
export interface BankKindProfile {
  readonly brands: Readonly<Partial<Record<CardBrand, number>>>;
  readonly types: Readonly<Partial<Record<CardType, number>>>;
  readonly approval: number;
  readonly risk: number;
}

export const BANK_KIND_PROFILES: Readonly<Record<BankKind, BankKindProfile>> = {
  major: { brands: { VISA: 0.65, MASTERCARD: 0.35 }, types: { CREDIT: 0.5, DEBIT: 0.48, PREPAID: 0.02 }, approval: 0.1, risk: 1 },
  card_issuer: { brands: { VISA: 0.45, MASTERCARD: 0.55 }, types: { CREDIT: 0.9, DEBIT: 0.1 }, approval: 0.15, risk: 0.9 },
  subprime: { brands: { VISA: 0.5, MASTERCARD: 0.5 }, types: { CREDIT: 0.95, PREPAID: 0.05 }, approval: -0.55, risk: 1.6 },
  credit_union: { brands: { VISA: 0.75, MASTERCARD: 0.25 }, types: { CREDIT: 0.45, DEBIT: 0.55 }, approval: 0.2, risk: 0.8 },
  regional: { brands: { VISA: 0.6, MASTERCARD: 0.4 }, types: { CREDIT: 0.35, DEBIT: 0.62, PREPAID: 0.03 }, approval: 0.05, risk: 1 },
  prepaid: { brands: { VISA: 0.6, MASTERCARD: 0.4 }, types: { PREPAID: 0.75, DEBIT: 0.25 }, approval: -0.35, risk: 1.4 },
  neobank: { brands: { VISA: 0.85, MASTERCARD: 0.15 }, types: { DEBIT: 0.9, PREPAID: 0.1 }, approval: -0.25, risk: 1.3 },
  amex: { brands: { AMEX: 1 }, types: { CREDIT: 0.97, PREPAID: 0.03 }, approval: 0.3, risk: 0.9 },
  discover: { brands: { DISCOVER: 1 }, types: { CREDIT: 0.92, DEBIT: 0.08 }, approval: 0, risk: 1 },
};

/**
 * BINs that always exist with these attributes, whatever the seed, so documentation, fixtures and
 * routing rules can name them (414720 is the example in SPEC.md §4.2).
 */
export const PINNED_BINS: readonly { bin: string; bank: string; brand: CardBrand; type: CardType }[] = [
  { bin: "414720", bank: "JPMORGAN CHASE BANK N.A.", brand: "VISA", type: "DEBIT" },
];

// ---------------------------------------------------------------------------------------------
// Calendar shapes

/** New-order volume by weekday, Sunday first; averages 1 so `ordersPerDay` stays the mean. */
export const WEEKDAY_FACTORS = [0.88, 1.08, 1.12, 1.08, 1.02, 0.95, 0.87] as const;

/** Relative volume of new orders by hour of day (US evening peak). */
export const HOURLY_WEIGHTS = [
  1.2, 0.8, 0.6, 0.5, 0.5, 0.7, 1.2, 2.0, 3.0, 3.8, 4.2, 4.5, 4.6, 4.5, 4.4, 4.4, 4.6, 5.0, 5.6, 6.0, 6.0, 5.4, 4.0,
  2.4,
] as const;

/** Rebills and their retries run in the CRM's nightly batch window, [start, end) in seconds of day. */
export const REBILL_BATCH_WINDOW = [2 * 3600, 7 * 3600] as const;
