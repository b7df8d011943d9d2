/**
 * The simulation: a subscription merchant's customers, their initial orders and rebills, every
 * payment attempt with retries and cascades, and the refunds, alerts and chargebacks that follow
 * approvals, drawn from `seed` against the fixed world of world.ts.
 *
 * Shape of the run: one pass over the days, oldest first. Each day processes the rebills and
 * retries that fall due that day, then the day's new customers, then the refunds, alerts and
 * chargebacks dated that day (all decided when their attempt was approved and parked in a calendar
 * queue until their date). Anything dated after `endDate` is simply never reached. So every fact
 * table is written in date order, which keeps DuckDB's per-row-group min/max on the date columns
 * tight for the report queries.
 *
 * Determinism: every draw comes from one seeded generator in a fixed order, and ids are handed out in
 * generation order; any change to the order of the draws here changes the data of every seed.
 */
import { ALERT_TYPES, REFUND_TYPES, SALES_TYPES } from "../../../lib/contract/catalog";
import { fromEpochDay } from "../../../lib/contract/dates";
import { Prng, WeightedSampler } from "../prng";
import { HOURLY_WEIGHTS, REBILL_BATCH_WINDOW, REBILL_INTERVAL_DAYS, WEEKDAY_FACTORS, type CardBrand } from "../reference-data";
import { MAX_ID, PACK_A, PACK_B, type StageRows } from "./rows";
import type { CampaignRow, World } from "./world";

// Behaviour of customers, retries and disputes: log-odds shifts unless said otherwise (the bases
// and the card and gateway effects are in world.ts).

/** Per-customer card quality (funds, credit line), shared by all their orders. */
const CUSTOMER_SIGMA = 0.7;

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

const ST_REBILLS = SALES_TYPES.indexOf("Rebills");
const RT_ALERT = REFUND_TYPES.indexOf("Refund Alert");
const RT_CS = REFUND_TYPES.indexOf("Refund CS");

const EV_REFUND = 0;
const EV_CHARGEBACK = 1;
const EV_ALERT = 2;

/** Fills the staging tables one day at a time; its counters are the summary of `generate`. */
export class Simulation {
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
    private readonly stages: StageRows,
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

/**
 * Runs the simulation day by day, reporting progress about 20 times; `pause`, if given, runs between
 * days (on the service's own thread, to let other work on the event loop run).
 */
export async function simulateDays(
  sim: Simulation,
  startDay: number,
  volumes: Int32Array,
  progress: (msg: string) => void,
  pause?: () => Promise<void>,
): Promise<SimulationCounts> {
  const days = volumes.length;
  const every = Math.max(1, Math.round(days / 20));
  for (let i = 0; i < days; i++) {
    sim.runDay(startDay + i, volumes[i] ?? 0);
    if ((i + 1) % every === 0 || i === days - 1) {
      progress(`generated ${fromEpochDay(startDay + i)} (${i + 1}/${days} days, ${sim.attempts.toLocaleString("en-US")} attempts)`);
    }
    if (pause) await pause();
  }
  return { customers: sim.customers, attempts: sim.attempts, refunds: sim.refunds, chargebacks: sim.chargebacks, alerts: sim.alerts };
}

export interface SimulationCounts {
  customers: number;
  attempts: number;
  refunds: number;
  chargebacks: number;
  alerts: number;
}

function clampInt(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(x)));
}

/** New customers per day: weekday seasonality, growth from 0.85x to 1.15x over the range, 5% noise. */
export function dailyVolumes(opts: { readonly days: number; readonly ordersPerDay: number; readonly seed: number }, startDay: number): Int32Array {
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
