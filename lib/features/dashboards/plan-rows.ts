/**
 * How many records a report answers, before it is fetched: the cardinality model the planner costs
 * its queries with (./plan.ts). It errs high, since an underestimate can push a merged query past the
 * page cap while an overestimate only costs a merge that would have been free.
 */
import type { Operation } from "@/lib/contract/catalog";
import { addDays, daysBetween, isCalendarDate } from "@/lib/contract/dates";
import { effectiveGroupBy, type ReportQuery } from "@/lib/core/upstream/records";
import { asList, filtersOf } from "./plan-queries";

/** Distinct values the server has seen of a dimension, where it has seen them. */
export type Cardinality = (dimension: string) => number | undefined;

/**
 * Distinct values of each dimension over a typical quarter of a mid-size subscription merchant,
 * used until the server has seen the real ones. They err high: overestimating only costs a merge
 * that would have been free, underestimating can push a merged query past the page cap.
 */
const DEFAULT_CARDINALITY: Readonly<Record<string, number>> = {
  // The merchant's own set-up: tens of campaigns and SKUs (5 lines × 5 SKUs in the demo data),
  // a couple of dozen MIDs across a handful of acquirers.
  campaign_id: 50,
  campaign_name: 50,
  campaign_type: 4,
  product_id: 30,
  product_name: 30,
  product_group: 8,
  gateway_id: 20,
  gateway_alias: 20,
  acquirer: 10,
  mcc: 4,
  // Traffic: tens of affiliates, each sending from several sources.
  affid: 50,
  sub_affid: 500,
  // Cards: a quarter's BINs run to a couple of thousand (the demo's table has 2,000, and a 101-day
  // piece of its data sees nearly all of them), their issuers to hundreds. Brand and type count a
  // null for BINs the BIN table does not know. Once answers have shown the real count, the
  // dashboard plans with that instead (lib/features/dashboards/run.ts).
  bin: 2000,
  bank: 500,
  card_brand: 5,
  card_type: 4,
  // Sale classification. refund_type and alert_type are null outside their metrics, hence + 1.
  sales_type: 3,
  refund_type: 3,
  alert_type: 4,
  // A year of monthly rebills; retries rarely go past a few attempts.
  billing_cycle: 12,
  attempt_col: 5,
  price_point: 20,
};

/** For a dimension the table above does not know (one added to the catalog later). */
const UNKNOWN_DIMENSION_CARDINALITY = 100;

/**
 * No grouping can have more rows in a day than the day has facts (attempts and their chargebacks,
 * refunds and alerts). The demo data's finest grain has about 20,000 rows a day (docs/benchmarks.md,
 * case c); this keeps products like bin × sub_affid from predicting millions of rows a day.
 */
const MAX_ROWS_PER_DAY = 25_000;

/**
 * Dimensions the service joins from one table keyed by an id (service/data/schema.ts: gateways,
 * products, campaigns, bins), so that grouping by the id as well adds no rows. Names are one per id;
 * attributes are coarser (many gateways per acquirer).
 */
const FAMILIES: readonly { key: string; names: readonly string[]; attributes: readonly string[] }[] = [
  { key: "gateway_id", names: ["gateway_alias"], attributes: ["acquirer", "mcc"] },
  { key: "product_id", names: ["product_name"], attributes: ["product_group"] },
  { key: "campaign_id", names: ["campaign_name"], attributes: ["campaign_type"] },
  { key: "bin", names: [], attributes: ["bank", "card_brand", "card_type"] },
];

/**
 * Days from the initial order to the first rebill at the soonest (a trial's shortest, SPEC.md §5:
 * "trial then monthly rebills"), and between later rebills at the soonest (the shortest month).
 */
const FIRST_REBILL_MIN_DAYS = 14;
const REBILL_MIN_DAYS = 28;

/**
 * The most billing cycles a customer who started `age` days before today can have reached, the
 * initial order (cycle 0) included. A cohort answer by initial date and billing cycle holds one
 * record per cycle reached: a day three months old holds about four, not the year's twelve the
 * cardinality model counts, and a quarter's cohort then costs one page where twelve a day said two.
 * It errs high (the soonest each rebill can come), so it never plans fewer pages than are made.
 */
export function cohortCycles(age: number): number {
  if (age < FIRST_REBILL_MIN_DAYS) return 1;
  return 2 + Math.floor((age - FIRST_REBILL_MIN_DAYS) / REBILL_MIN_DAYS);
}

/** Records of `query`'s whole range, per the cardinality model. */
export function estimateRows(op: Operation, query: ReportQuery, cardinality?: Cardinality, today?: string): number {
  if (!isCalendarDate(query.start_date) || !isCalendarDate(query.end_date)) return 0;
  const days = daysBetween(query.start_date, query.end_date) + 1;
  if (days <= 0) return 0;
  const filters = filtersOf(query);
  const base = (d: string): number => {
    if (d === "date") return days;
    const observed = cardinality?.(d);
    if (observed !== undefined && Number.isFinite(observed) && observed >= 0) return observed;
    return DEFAULT_CARDINALITY[d] ?? UNKNOWN_DIMENSION_CARDINALITY;
  };
  // A filter can only leave as many values as it names (a date filter also leaves fewer days).
  const card = (d: string): number => {
    const f = filters[d];
    return f === undefined ? base(d) : Math.min(base(d), asList(f).length);
  };

  const grouped = new Set(effectiveGroupBy(op, query));
  const counted = new Set<string>(["date"]);
  let combos = 1;
  for (const { key, names, attributes } of FAMILIES) {
    const groupedNames = names.filter((n) => grouped.has(n));
    const groupedAttributes = attributes.filter((a) => grouped.has(a));
    for (const d of [key, ...names, ...attributes]) counted.add(d);
    if (grouped.has(key)) {
      // One name per id: a filtered name caps the ids as its own filter would.
      combos *= Math.min(card(key), ...groupedNames.map(card));
    } else if (groupedNames.length > 0) {
      combos *= Math.min(...groupedNames.map(card));
    } else if (groupedAttributes.length > 0) {
      combos *= Math.min(
        groupedAttributes.reduce((n, a) => n * card(a), 1),
        base(key),
      );
    }
  }
  // A cohort's billing cycles are counted per initial date, by how many can have come round since.
  const maturing = op === "cohort" && grouped.has("billing_cycle") && today !== undefined && isCalendarDate(today);
  if (maturing) counted.add("billing_cycle");
  for (const d of grouped) if (!counted.has(d)) combos *= card(d);

  const activeDays = card("date");
  if (maturing) {
    const cycles = (day: string) => Math.min(card("billing_cycle"), cohortCycles(Math.max(0, daysBetween(day, today))));
    if (!grouped.has("date")) return Math.min(combos * cycles(query.start_date), MAX_ROWS_PER_DAY * activeDays);
    // Each initial date on its own, as many as a date filter leaves (the oldest first: they hold the most).
    let rows = 0;
    for (let i = 0; i < activeDays; i++) rows += Math.min(combos * cycles(addDays(query.start_date, i)), MAX_ROWS_PER_DAY);
    return rows;
  }
  return grouped.has("date")
    ? activeDays * Math.min(combos, MAX_ROWS_PER_DAY)
    : Math.min(combos, MAX_ROWS_PER_DAY * activeDays);
}
