/**
 * An independent reference for the report operations: plain TypeScript over the raw rows of a small
 * dataset, written from SPEC.md §2–3 without the service's SQL. Tests compare it with HTTP answers.
 */
import {
  dimensionsFor,
  metricsFor,
  type FilterScalar,
  type Operation,
  type ReportRecord,
  type ReportRequest,
} from "@/lib/contract";
import type { Database } from "../db";

interface Attempt {
  attempt_id: string;
  customer_id: string;
  attempt_date: string;
  attempt_no: number;
  is_cascade: boolean;
  approved: boolean;
  amount_cents: string;
  billing_cycle: number;
  sales_type: string;
  campaign_id: number;
  product_id: number;
  gateway_id: number;
  bin: string;
  affid: string | null;
  sub_affid: string | null;
  price_point_cents: string;
  initial_date: string;
}
interface Customer {
  customer_id: string;
  campaign_id: number;
  product_id: number;
  affid: string | null;
  sub_affid: string | null;
  price_point_cents: string;
}
interface Event {
  attempt_id: string;
  date: string;
  amount_cents: string;
  type: string | null;
}

export interface Dataset {
  attempts: Map<string, Attempt>;
  customers: Map<string, Customer>;
  refunds: Event[];
  chargebacks: Event[];
  alerts: Event[];
  products: Map<number, { product_name: string; product_group: string }>;
  campaigns: Map<number, { campaign_name: string; campaign_type: string; cpa_cents: string }>;
  gateways: Map<number, { gateway_alias: string; acquirer: string; mcc: string }>;
  bins: Map<string, { bank: string; card_brand: string; card_type: string }>;
}

export async function loadDataset(db: Database): Promise<Dataset> {
  const attempts = await db.all<Attempt & Record<string, unknown>>("SELECT * FROM attempts");
  const customers = await db.all<Customer & Record<string, unknown>>("SELECT * FROM customers");
  const ev = (table: string, date: string, type: string) =>
    db.all<Event & Record<string, unknown>>(`SELECT attempt_id, ${date} AS date, amount_cents, ${type} AS type FROM ${table}`);
  return {
    attempts: new Map(attempts.map((a) => [a.attempt_id, a])),
    customers: new Map(customers.map((c) => [c.customer_id, c])),
    refunds: await ev("refunds", "refund_date", "refund_type"),
    chargebacks: await ev("chargebacks", "cb_date", "NULL"),
    alerts: await ev("alerts", "alert_date", "alert_type"),
    products: new Map((await db.all<{ product_id: number; product_name: string; product_group: string }>("SELECT * FROM products")).map((r) => [r.product_id, r])),
    campaigns: new Map((await db.all<{ campaign_id: number; campaign_name: string; campaign_type: string; cpa_cents: string }>("SELECT * FROM campaigns")).map((r) => [r.campaign_id, r])),
    gateways: new Map((await db.all<{ gateway_id: number; gateway_alias: string; acquirer: string; mcc: string }>("SELECT * FROM gateways")).map((r) => [r.gateway_id, r])),
    bins: new Map((await db.all<{ bin: string; bank: string; card_brand: string; card_type: string }>("SELECT * FROM bins")).map((r) => [r.bin, r])),
  };
}

type Contribution = Record<string, number>;
interface Fact {
  date: string;
  a: Attempt;
  refund_type: string | null;
  alert_type: string | null;
  values: Contribution;
}

function attemptValues(op: Operation, a: Attempt, ds: Dataset): Contribution {
  const counted = !a.is_cascade;
  const approvedCounted = a.approved && counted;
  const revenue = a.approved ? Number(a.amount_cents) : 0;
  const cpa = a.approved && a.billing_cycle === 0 ? Number(ds.campaigns.get(a.campaign_id)?.cpa_cents ?? 0) : 0;
  const common = {
    cpa,
    initial_attempt: counted && a.billing_cycle === 0 ? 1 : 0,
    initial_approved: approvedCounted && a.billing_cycle === 0 ? 1 : 0,
    rebills_attempted: counted && a.billing_cycle >= 1 ? 1 : 0,
    rebills_approved: approvedCounted && a.billing_cycle >= 1 ? 1 : 0,
  };
  if (op === "cohort") {
    return { ...common, attempts_by_initial_date: counted ? 1 : 0, approvals_by_initial_date: approvedCounted ? 1 : 0, revenue_by_initial_date: revenue };
  }
  return {
    ...common,
    attempts: counted ? 1 : 0,
    approvals: approvedCounted ? 1 : 0,
    revenue,
    net_approvals: a.approved ? 1 : 0,
    approvals_organic: a.approved && a.attempt_no === 1 ? 1 : 0,
  };
}

const EVENT_NAMES = {
  chargebacks: { count: "cb_count", amount: "cb_amount", countByDate: "cb_count_by_cb_date", amountByDate: "cb_amount_by_cb_date" },
  refunds: { count: "refund_count", amount: "refund_amount", countByDate: "refund_count_by_refund_date", amountByDate: "refund_amount_by_refund_date" },
  alerts: { count: "alert_count", amount: "alert", countByDate: "alert_count_by_alert_date", amountByDate: "alert_by_alert_date" },
} as const;

function facts(op: Operation, ds: Dataset): Fact[] {
  const out: Fact[] = [];
  for (const a of ds.attempts.values()) {
    out.push({ date: op === "cohort" ? a.initial_date : a.attempt_date, a, refund_type: null, alert_type: null, values: attemptValues(op, a, ds) });
  }
  for (const kind of ["chargebacks", "refunds", "alerts"] as const) {
    const n = EVENT_NAMES[kind];
    for (const e of ds[kind]) {
      const a = ds.attempts.get(e.attempt_id);
      if (!a) throw new Error(`event references missing attempt ${e.attempt_id}`);
      const refund_type = kind === "refunds" ? e.type : null;
      const alert_type = kind === "alerts" ? e.type : null;
      const amount = Number(e.amount_cents);
      if (op === "cohort") {
        const short = kind === "chargebacks" ? "cb" : kind === "refunds" ? "refund" : "alert";
        const values = kind === "alerts"
          ? { alert_count_by_initial_date: 1, alert_by_initial_date: amount }
          : { [`${short}_count_by_initial_date`]: 1, [`${short}_amount_by_initial_date`]: amount };
        out.push({ date: a.initial_date, a, refund_type, alert_type, values });
      } else {
        out.push({ date: a.attempt_date, a, refund_type, alert_type, values: { [n.count]: 1, [n.amount]: amount } });
        out.push({ date: e.date, a, refund_type, alert_type, values: { [n.countByDate]: 1, [n.amountByDate]: amount } });
      }
    }
  }
  return out;
}

function dimensionValue(op: Operation, dim: string, f: Fact, ds: Dataset): string | number | null {
  const a = f.a;
  const initial = op === "cohort" ? ds.customers.get(a.customer_id) : undefined;
  const campaignId = initial ? initial.campaign_id : a.campaign_id;
  const productId = initial ? initial.product_id : a.product_id;
  switch (dim) {
    case "date": return f.date;
    case "campaign_id": return campaignId;
    case "product_id": return productId;
    case "gateway_id": return a.gateway_id;
    case "bin": return a.bin;
    case "affid": return initial ? initial.affid : a.affid;
    case "sub_affid": return initial ? initial.sub_affid : a.sub_affid;
    case "sales_type": return a.sales_type;
    case "refund_type": return f.refund_type;
    case "alert_type": return f.alert_type;
    case "billing_cycle": return a.billing_cycle;
    case "attempt_col": return a.attempt_no;
    case "price_point": return Number(initial ? initial.price_point_cents : a.price_point_cents) / 100;
    case "product_name": return ds.products.get(productId)?.product_name ?? null;
    case "product_group": return ds.products.get(productId)?.product_group ?? null;
    case "campaign_name": return ds.campaigns.get(campaignId)?.campaign_name ?? null;
    case "campaign_type": return ds.campaigns.get(campaignId)?.campaign_type ?? null;
    case "mcc": return ds.gateways.get(a.gateway_id)?.mcc ?? null;
    case "acquirer": return ds.gateways.get(a.gateway_id)?.acquirer ?? null;
    case "gateway_alias": return ds.gateways.get(a.gateway_id)?.gateway_alias ?? null;
    case "bank": return ds.bins.get(a.bin)?.bank ?? null;
    case "card_brand": return ds.bins.get(a.bin)?.card_brand ?? null;
    case "card_type": return ds.bins.get(a.bin)?.card_type ?? null;
    default: throw new Error(`reference does not know dimension ${dim}`);
  }
}

function compare(x: string | number | null, y: string | number | null): number {
  if (x === y) return 0;
  if (x === null) return 1; // nulls last
  if (y === null) return -1;
  if (typeof x === "number" && typeof y === "number") return x - y;
  return String(x) < String(y) ? -1 : 1;
}

const factCache = new WeakMap<Dataset, Map<Operation, Fact[]>>();

/** The full, unpaged answer plus its page, per SPEC.md. */
export function referenceReport(op: Operation, req: ReportRequest, ds: Dataset): { data: ReportRecord[]; total: number } {
  const dims = req.group_by ?? dimensionsFor(op).map((d) => d.name);
  const metrics = req.metrics ?? metricsFor(op).map((m) => m.name);
  const amountMetrics = new Set(metricsFor(op).filter((m) => m.type === "amount").map((m) => m.name));
  let byOp = factCache.get(ds);
  if (!byOp) factCache.set(ds, (byOp = new Map()));
  let all = byOp.get(op);
  if (!all) byOp.set(op, (all = facts(op, ds)));

  const filters = Object.entries(req.filters ?? {}) as [string, FilterScalar | FilterScalar[]][];
  const groups = new Map<string, { key: (string | number | null)[]; sums: Record<string, number> }>();
  for (const f of all) {
    if (f.date < req.start_date || f.date > req.end_date) continue;
    if (!metrics.some((m) => m in f.values)) continue;
    const ok = filters.every(([d, v]) => {
      const want = Array.isArray(v) ? v : [v];
      return want.includes(dimensionValue(op, d, f, ds));
    });
    if (!ok) continue;
    const key = dims.map((d) => dimensionValue(op, d, f, ds));
    const id = JSON.stringify(key);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { key, sums: {} }));
    for (const m of metrics) g.sums[m] = (g.sums[m] ?? 0) + (f.values[m] ?? 0);
  }
  const rows = [...groups.values()]
    .filter((g) => metrics.some((m) => (g.sums[m] ?? 0) !== 0))
    .sort((x, y) => {
      for (let i = 0; i < dims.length; i++) {
        const c = compare(x.key[i] ?? null, y.key[i] ?? null);
        if (c !== 0) return c;
      }
      return 0;
    })
    .map((g) => {
      const rec: ReportRecord = {};
      dims.forEach((d, i) => (rec[d] = g.key[i] ?? null));
      for (const m of metrics) rec[m] = amountMetrics.has(m) ? (g.sums[m] ?? 0) / 100 : (g.sums[m] ?? 0);
      return rec;
    });
  const offset = req.offset ?? 0;
  const limit = req.limit ?? 1000;
  return { data: rows.slice(offset, offset + limit), total: rows.length };
}
