/**
 * Report requests (SPEC.md §2.1, §3): the filters of each catalog dimension, the service's request
 * schemas (paging, the per-call range cap) and the dashboard's (no paging, longer ranges it splits).
 */
import { z } from "zod";
import {
  LIMITS,
  dimensionsFor,
  metricsFor,
  type CohortDimension,
  type CohortMetric,
  type DimensionDef,
  type Operation,
  type OrdersDimension,
  type OrdersMetric,
} from "./catalog";
import { addDays, daysBetween, isCalendarDate } from "./dates";
import { CalendarDate, caseInsensitiveEnum } from "./scalars";

/** An array whose items are unique; each duplicate is reported at its own index. */
function uniqueArray<S extends z.ZodType>(item: S, what: string) {
  return z.array(item).superRefine((items, ctx) => {
    const seen = new Set<unknown>();
    items.forEach((v, i) => {
      if (seen.has(v)) ctx.addIssue({ code: "custom", path: [i], message: `duplicate ${what} "${String(v)}"` });
      seen.add(v);
    });
  });
}

export type FilterScalar = string | number | null;

function filterScalarSchema(d: DimensionDef): z.ZodType<FilterScalar, unknown> {
  let scalar: z.ZodType<string | number, unknown>;
  switch (d.type) {
    case "date":
      scalar = CalendarDate;
      break;
    case "integer":
      scalar = z.int();
      break;
    case "decimal":
      scalar = z.number();
      break;
    case "string":
      scalar =
        d.values && d.values.length > 0
          ? caseInsensitiveEnum(d.values as unknown as readonly [string, ...string[]])
          : z.string().min(1).max(LIMITS.maxStringFilterLength);
      break;
  }
  // null selects the records where the dimension is empty (e.g. refund_type outside refund metrics).
  return scalar.nullable();
}

const typeWords: Record<DimensionDef["type"], string> = {
  date: "a date YYYY-MM-DD",
  integer: "an integer",
  decimal: "a number",
  string: "a string",
};

function filterValueSchema(d: DimensionDef) {
  const scalar = filterScalarSchema(d);
  const word = d.values ? `one of ${d.values.join(", ")}` : typeWords[d.type];
  return z
    .union([scalar, z.array(scalar).min(1).max(LIMITS.maxFilterValues)], {
      error: (issue) =>
        issue.code === "invalid_union"
          ? `${d.name} filter must be ${word}, or an array of 1 to ${LIMITS.maxFilterValues} such values`
          : undefined,
    })
    .meta({ description: `${d.label}: ${word}, or an array of 1 to ${LIMITS.maxFilterValues} of them (any of)` });
}

export interface ReportRequest<D extends string = string, M extends string = string> {
  start_date: string;
  end_date: string;
  group_by?: D[];
  metrics?: M[];
  filters?: Partial<Record<D, FilterScalar | FilterScalar[]>>;
  limit?: number;
  offset?: number;
}

function unknownName(what: string, op: Operation) {
  const operation = op === "orders" ? "the order summary" : "the cohort summary";
  return (iss: { input?: unknown }) =>
    typeof iss.input === "string" ? `unknown ${what} "${iss.input}" for ${operation}` : `each ${what} must be a string name`;
}

interface SchemaOptions {
  /** The contract's cap per call; the dashboard accepts longer ranges and splits them. */
  maxRangeDays: number;
  /** Whether limit and offset are accepted (the dashboard fetches every page itself). */
  paging: boolean;
}

function reportRequestSchema<D extends string, M extends string>(
  op: Operation,
  { maxRangeDays, paging }: SchemaOptions = { maxRangeDays: LIMITS.maxRangeDays, paging: true },
) {
  const dims = dimensionsFor(op);
  const dimNames = dims.map((d) => d.name) as [D, ...D[]];
  const metricNames = metricsFor(op).map((m) => m.name) as [M, ...M[]];
  const filterShape = Object.fromEntries(dims.map((d) => [d.name, filterValueSchema(d).optional()]));

  const schema = z
    .strictObject({
      start_date: CalendarDate.meta({ description: "First day, inclusive" }),
      end_date: CalendarDate.meta({ description: `Last day, inclusive; at most ${LIMITS.maxRangeDays} days after start_date` }),
      group_by: uniqueArray(z.enum(dimNames, { error: unknownName("dimension", op) }), "dimension")
        .max(LIMITS.maxGroupBy, { error: `group_by takes at most ${LIMITS.maxGroupBy} dimensions` })
        .optional(),
      metrics: uniqueArray(z.enum(metricNames, { error: unknownName("metric", op) }), "metric")
        .min(1, { error: "metrics must name at least one metric (omit it for all metrics)" })
        .optional(),
      filters: z.strictObject(filterShape).optional(),
      ...(paging
        ? {
            limit: z
              .int({ error: "limit must be an integer" })
              .min(1, { error: "limit must be at least 1" })
              .max(LIMITS.maxPageSize, { error: `limit must be at most ${LIMITS.maxPageSize}` })
              .optional(),
            offset: z.int({ error: "offset must be an integer" }).min(0, { error: "offset must be at least 0" }).optional(),
          }
        : {}),
    })
    .superRefine((r, ctx) => {
      if (!isCalendarDate(r.start_date) || !isCalendarDate(r.end_date)) return;
      const span = daysBetween(r.start_date, r.end_date);
      if (span < 0) {
        ctx.addIssue({ code: "custom", path: ["end_date"], message: "end_date must not be before start_date" });
      } else if (span > maxRangeDays) {
        ctx.addIssue({
          code: "custom",
          path: ["end_date"],
          message: `end_date must be at most ${maxRangeDays} days after start_date (at most ${addDays(r.start_date, maxRangeDays)})`,
        });
      }
    });
  return schema as unknown as z.ZodType<ReportRequest<D, M>, unknown>;
}

export const OrdersRequestSchema = reportRequestSchema<OrdersDimension, OrdersMetric>("orders");
export const CohortRequestSchema = reportRequestSchema<CohortDimension, CohortMetric>("cohort");

export function reportRequestSchemaFor(op: Operation): z.ZodType<ReportRequest, unknown> {
  return op === "orders" ? OrdersRequestSchema : CohortRequestSchema;
}

/** A whole report as the dashboard takes it: no paging, and ranges up to ~10 years (split into calls). */
export type ReportQuery = Omit<ReportRequest, "limit" | "offset">;
export const DASHBOARD_MAX_RANGE_DAYS = LIMITS.maxDashboardRangeDays;
const querySchemas = {
  orders: reportRequestSchema("orders", { maxRangeDays: DASHBOARD_MAX_RANGE_DAYS, paging: false }),
  cohort: reportRequestSchema("cohort", { maxRangeDays: DASHBOARD_MAX_RANGE_DAYS, paging: false }),
};
export function reportQuerySchemaFor(op: Operation): z.ZodType<ReportQuery, unknown> {
  return querySchemas[op];
}

