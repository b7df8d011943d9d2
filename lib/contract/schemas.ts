/**
 * The wire contract (SPEC.md §1–4) as zod 4 schemas. The service validates with these, the dashboard
 * validates with these before spending upstream quota, and the OpenAPI document is generated from them.
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

// ---------------------------------------------------------------------------------------------
// Scalars

export const CalendarDate = z
  .string({ error: (iss) => (iss.input === undefined ? "is required" : "must be a date string YYYY-MM-DD") })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date in the form YYYY-MM-DD", abort: true })
  .refine(isCalendarDate, { error: "is not a real calendar date" })
  .meta({ format: "date", example: "2025-07-01" });

export const Timestamp = z.string().meta({ format: "date-time", example: "2025-07-31T12:00:00.000Z" });

/** A string matched case-insensitively against `values` and returned in its canonical spelling. */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v] as const));
  return z
    .string()
    .transform((s, ctx): T[number] => {
      const canonical = byLower.get(s.toLowerCase());
      if (canonical === undefined) {
        ctx.addIssue({ code: "custom", message: `must be one of ${values.map((v) => `"${v}"`).join(", ")} (case-insensitive)` });
        return z.NEVER;
      }
      return canonical;
    })
    .meta({ enum: [...values], description: "matched case-insensitively" });
}

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

// ---------------------------------------------------------------------------------------------
// Report requests (§2.1, §3)

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
export type OrdersRequest = ReportRequest<OrdersDimension, OrdersMetric>;
export type CohortRequest = ReportRequest<CohortDimension, CohortMetric>;

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

// ---------------------------------------------------------------------------------------------
// Report responses (§1.2)

function recordSchema(op: Operation) {
  const shape: Record<string, z.ZodType> = {};
  for (const d of dimensionsFor(op)) {
    const t = d.type === "date" ? CalendarDate : d.type === "integer" ? z.int() : d.type === "decimal" ? z.number() : z.string();
    shape[d.name] = t.nullable().optional().meta({ description: d.description });
  }
  for (const m of metricsFor(op)) {
    shape[m.name] = (m.type === "int" ? z.int() : z.number()).optional().meta({ description: m.description });
  }
  return z.object(shape);
}

export const OrdersRecordSchema = recordSchema("orders");
export const CohortRecordSchema = recordSchema("cohort");
export type ReportRecord = Record<string, string | number | null>;

export const PaginationSchema = z.object({
  total: z.int().min(0),
  limit: z.int().min(1),
  offset: z.int().min(0),
  has_more: z.boolean(),
});
export type Pagination = z.infer<typeof PaginationSchema>;

function successEnvelope<R extends z.ZodType>(record: R) {
  return z.object({
    success: z.literal(true),
    code: z.literal(200),
    message: z.string(),
    data: z.array(record),
    pagination: PaginationSchema,
    timestamp: Timestamp,
  });
}
export const OrdersResponseSchema = successEnvelope(OrdersRecordSchema);
export const CohortResponseSchema = successEnvelope(CohortRecordSchema);
export interface ReportResponse {
  success: true;
  code: 200;
  message: string;
  data: ReportRecord[];
  pagination: Pagination;
  timestamp: string;
}
const ReportEnvelopeSchema = z.object({
  success: z.literal(true),
  code: z.literal(200),
  message: z.string(),
  data: z.array(z.unknown()),
  pagination: PaginationSchema,
  timestamp: z.string(),
});

const isScalar = (v: unknown) => v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/**
 * Parses an upstream answer loosely enough for any honest server, strictly enough to trust: the
 * envelope with zod, the records (thousands per page) with a plain loop, which is ~10× cheaper.
 */
export function parseReportResponse(json: unknown): ReportResponse | null {
  const env = ReportEnvelopeSchema.safeParse(json);
  if (!env.success) return null;
  for (const r of env.data.data) {
    if (typeof r !== "object" || r === null || Array.isArray(r)) return null;
    for (const v of Object.values(r)) if (!isScalar(v)) return null;
  }
  return env.data as ReportResponse;
}

// ---------------------------------------------------------------------------------------------
// Errors (§1.3)

export const ERROR_TYPES = {
  400: "BadRequestError",
  401: "UnauthorizedError",
  403: "ForbiddenError",
  404: "NotFoundError",
  405: "MethodNotAllowedError",
  413: "PayloadTooLargeError",
  415: "UnsupportedMediaTypeError",
  429: "RateLimitError",
  500: "InternalServerError",
  503: "ServiceUnavailableError",
} as const;
export type ErrorStatus = keyof typeof ERROR_TYPES;
export type ErrorType = (typeof ERROR_TYPES)[ErrorStatus];

export const ErrorDetailSchema = z.object({ path: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

export const ErrorEnvelopeSchema = z.object({
  success: z.literal(false),
  code: z.int(),
  message: z.string(),
  error: z.object({
    type: z.enum(Object.values(ERROR_TYPES) as [ErrorType, ...ErrorType[]]),
    details: z.array(ErrorDetailSchema).optional(),
  }),
  retry_after: z.int().min(1).optional().meta({ description: "Seconds to wait; only on 429" }),
  request_id: z.string(),
  timestamp: Timestamp,
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

/** Renders a zod path as `filters.product_id[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out === "" ? "(body)" : out;
}

/** Every problem in a zod error as a `{path, message}` list; unknown keys each get their own path. */
export function issuesToDetails(error: z.ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        details.push({ path: formatPath([...issue.path, key]), message: `unknown field "${key}"` });
      }
    } else {
      details.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return details;
}

/** One readable sentence for the envelope's `message`, naming the field(s). */
export function detailsToMessage(details: readonly ErrorDetail[]): string {
  const first = details[0];
  if (!first) return "Invalid request";
  const one = first.message.startsWith(first.path) ? first.message : `${first.path}: ${first.message}`;
  return details.length === 1 ? one : `${one} (and ${details.length - 1} more problem${details.length > 2 ? "s" : ""})`;
}

// ---------------------------------------------------------------------------------------------
// Tokens (§1.1)

export const TokenRequestSchema = z.strictObject({
  client_id: z.string().min(1).max(128),
  client_secret: z.string().min(1).max(256),
  grant_type: z.literal("client_credentials").optional(),
});
export type TokenRequest = z.infer<typeof TokenRequestSchema>;

export const TokenResponseSchema = z.object({
  success: z.literal(true),
  code: z.literal(200),
  message: z.string(),
  data: z.object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.int().min(1),
  }),
  timestamp: Timestamp,
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

// ---------------------------------------------------------------------------------------------
// BIN routing (§4)

export const ROUTING_SALES_TYPES = ["INITIALS", "REBILLS"] as const;
export const SELECTION_METHODS = ["ROUND_ROBIN", "WEIGHTAGE", "RANDOM"] as const;
export type SelectionMethod = (typeof SELECTION_METHODS)[number];

export const BinRoutingRequestSchema = z.strictObject({
  bin: z.string().regex(/^\d{6,8}$/, { error: "bin must be a string of 6 to 8 digits" }),
  sales_type: caseInsensitiveEnum(ROUTING_SALES_TYPES).optional(),
  customer_id: z.string().max(128).optional(),
  product_id: z.string().max(128).optional(),
  email: z.email({ error: "email must be an e-mail address" }).max(320).optional(),
});
export type BinRoutingRequest = z.output<typeof BinRoutingRequestSchema>;

export const BinInfoSchema = z.object({
  bin: z.string(),
  bank: z.string().nullable(),
  card_brand: z.string().nullable(),
  card_type: z.string().nullable(),
});

export const BinRoutingResponseSchema = z.object({
  success: z.literal(true),
  gateway_id: z.string(),
  group_id: z.int(),
  group_name: z.string(),
  is_fallback: z.boolean(),
  timestamp: Timestamp,
  session_info: z.object({
    selection_method: z.enum(SELECTION_METHODS),
    rule_name: z.string(),
    current_index: z.int().min(0),
    total_calls: z.int().min(1),
    total_mids: z.int().min(1),
    next_gateway_id: z.string(),
  }),
  bin_info: BinInfoSchema.nullable().optional().meta({ description: "Extension: issuer of the BIN, null when unknown" }),
});
export type BinRoutingResponse = z.infer<typeof BinRoutingResponseSchema>;
