/**
 * A dashboard's queries as the planner reads them: checked against the contract without zod (the
 * planner runs in the browser too), normalized to the spelling the gateway keys answers by, and two
 * merged into one whose answer both can be derived from. The planning itself is ./plan.ts.
 */
import { DIMENSIONS, LIMITS, OPERATIONS, dimensionsFor, type DimensionDef, getDimension, metricsFor, type Operation } from "@/lib/contract/catalog";
import { daysBetween, isCalendarDate } from "@/lib/contract/dates";
import type { FilterScalar } from "@/lib/contract/requests";
import { canonicalQuery, type ReportQuery } from "@/lib/core/upstream/records";

export type Filters = Record<string, FilterScalar | FilterScalar[]>;

export const asList = (v: FilterScalar | FilterScalar[]): FilterScalar[] => (Array.isArray(v) ? v : [v]);
export const filtersOf = (q: ReportQuery): Filters => (q.filters ?? {}) as Filters;

// ---------------------------------------------------------------------------------------------
// The contract, checked without zod

/** Lower-cased spelling → catalog spelling, per enumerated dimension. */
const enumerated = new Map<string, Map<string, string>>(
  (DIMENSIONS as readonly DimensionDef[]).flatMap((d) => (d.values ? [[d.name, new Map(d.values.map((v) => [v.toLowerCase(), v]))]] : [])),
);

/**
 * Why `q` would not pass the gateway's query schema (OPERATION_SCHEMAS[op].query), or null. Kept
 * free of zod so that planning in the browser does not load the schemas; the tests hold it to them.
 * Like the schema, it takes enumerated values in any case.
 */
export function contractProblem(op: Operation, q: ReportQuery): string | null {
  if (!(OPERATIONS as readonly string[]).includes(op)) return `unknown operation "${String(op)}"`;
  if (!isCalendarDate(q.start_date) || !isCalendarDate(q.end_date)) return "start_date and end_date must be dates YYYY-MM-DD";
  const span = daysBetween(q.start_date, q.end_date);
  if (span < 0) return "end_date must not be before start_date";
  if (span > LIMITS.maxDashboardRangeDays) return `the range must be at most ${LIMITS.maxDashboardRangeDays} days`;
  const dims = new Set(dimensionsFor(op).map((d) => d.name));
  if (q.group_by !== undefined) {
    if (q.group_by.length > LIMITS.maxGroupBy) return `group_by takes at most ${LIMITS.maxGroupBy} dimensions`;
    if (new Set(q.group_by).size !== q.group_by.length) return "group_by repeats a dimension";
    const unknown = q.group_by.find((d) => !dims.has(d));
    if (unknown !== undefined) return `unknown dimension "${unknown}"`;
  }
  if (q.metrics !== undefined) {
    const known = new Set(metricsFor(op).map((m) => m.name));
    if (q.metrics.length === 0) return "metrics must name at least one metric";
    if (new Set(q.metrics).size !== q.metrics.length) return "metrics repeats a metric";
    const unknown = q.metrics.find((m) => !known.has(m));
    if (unknown !== undefined) return `unknown metric "${unknown}"`;
  }
  for (const [d, v] of Object.entries(filtersOf(q))) {
    const def = getDimension(d);
    if (!def || !dims.has(d)) return `unknown filter dimension "${d}"`;
    const list = asList(v);
    if (list.length < 1 || list.length > LIMITS.maxFilterValues) return `${d} filter takes 1 to ${LIMITS.maxFilterValues} values`;
    for (const x of list) {
      if (x === null) continue;
      const ok =
        def.type === "date"
          ? typeof x === "string" && isCalendarDate(x)
          : def.type === "integer"
            ? Number.isInteger(x)
            : def.type === "decimal"
              ? typeof x === "number" && Number.isFinite(x)
              : typeof x === "string" &&
                (def.values ? enumerated.get(d)?.has(x.toLowerCase()) === true : x.length >= 1 && x.length <= LIMITS.maxStringFilterLength);
      if (!ok) return `invalid ${d} filter value ${JSON.stringify(x)}`;
    }
  }
  return null;
}

/**
 * The request as the gateway will read it: its schema spells enumerated values as the catalog does
 * ("visa" → "VISA"), and two tiles that differ only in that must share one answer.
 */
export function normalizeQuery(op: Operation, q: ReportQuery): ReportQuery {
  let filters: Filters | undefined;
  if (q.filters) {
    filters = {};
    for (const [d, v] of Object.entries(q.filters as Partial<Filters>)) {
      if (v === undefined) continue;
      const spell = enumerated.get(d);
      const fix = (x: FilterScalar) => (spell && typeof x === "string" ? (spell.get(x.toLowerCase()) ?? x) : x);
      filters[d] = Array.isArray(v) ? v.map(fix) : fix(v);
    }
  }
  return canonicalQuery(op, { start_date: q.start_date, end_date: q.end_date, group_by: q.group_by, metrics: q.metrics, filters: filters as ReportQuery["filters"] });
}

// ---------------------------------------------------------------------------------------------
// Merging

/**
 * One query both answers can be derived from, or null when none fits the contract. Grouping by a
 * dimension is what makes a filter on it (or its absence) recoverable afterwards, hence every
 * filter the two do not share becomes a grouped dimension.
 */
export function mergeQueries(op: Operation, a: ReportQuery, b: ReportQuery): ReportQuery | null {
  const extra: string[] = [];
  if (a.start_date !== b.start_date || a.end_date !== b.end_date) extra.push("date");
  const fa = filtersOf(a);
  const fb = filtersOf(b);
  const filters: Filters = {};
  for (const d of [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort()) {
    const va = fa[d];
    const vb = fb[d];
    if (va !== undefined && vb !== undefined && JSON.stringify(asList(va)) === JSON.stringify(asList(vb))) {
      filters[d] = va;
      continue;
    }
    extra.push(d);
    if (va !== undefined && vb !== undefined) {
      const union = [...new Set([...asList(va), ...asList(vb)])];
      // Past the contract's limit the filter is dropped; grouping by the dimension still recovers both.
      if (union.length <= LIMITS.maxFilterValues) filters[d] = union;
    }
  }
  let group_by: string[] | undefined;
  // Without group_by a query is already at the finest grain: nothing to add.
  if (a.group_by && b.group_by) {
    const wanted = new Set([...a.group_by, ...b.group_by, ...extra]);
    // Catalog order, so that the merged query does not depend on which tile came first.
    group_by = dimensionsFor(op)
      .map((d) => d.name)
      .filter((d) => wanted.has(d));
    if (group_by.length !== wanted.size || group_by.length > LIMITS.maxGroupBy) return null;
  }
  const metrics = a.metrics && b.metrics ? [...new Set([...a.metrics, ...b.metrics])] : undefined;
  const merged = canonicalQuery(op, {
    start_date: a.start_date < b.start_date ? a.start_date : b.start_date,
    end_date: a.end_date > b.end_date ? a.end_date : b.end_date,
    group_by,
    metrics,
    filters: filters as ReportQuery["filters"],
  });
  return contractProblem(op, merged) === null ? merged : null;
}
