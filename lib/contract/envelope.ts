/**
 * The success envelope (SPEC.md §1.1, §1.2), defined once: `successEnvelope` writes the fields of
 * every 200 answer of the token and report endpoints, in wire order. The report answers, the token
 * answer and the dashboard's quick check of upstream answers are all built from it. (BIN routing
 * answers, §4, are flat and have no envelope.)
 */
import { z } from "zod";
import { CohortRecordSchema, OrdersRecordSchema, type ReportRecord } from "./records";
import { Timestamp } from "./scalars";

/**
 * `{success: true, code: 200, message, ...body, timestamp}`, where `body` is what the answer
 * carries: its `data`, and for a report page its `pagination` after it.
 */
export function successEnvelope<B extends { data: z.ZodType } & z.ZodRawShape>(body: B) {
  return z.object({
    success: z.literal(true),
    code: z.literal(200),
    message: z.string(),
    ...body,
    timestamp: Timestamp,
  });
}

export const PaginationSchema = z.object({
  total: z.int().min(0),
  limit: z.int().min(1),
  offset: z.int().min(0),
  has_more: z.boolean(),
});
export type Pagination = z.infer<typeof PaginationSchema>;

/** A page of report records in the success envelope. */
function reportEnvelope<R extends z.ZodType>(record: R) {
  return successEnvelope({ data: z.array(record), pagination: PaginationSchema });
}

export const OrdersResponseSchema = reportEnvelope(OrdersRecordSchema);
export const CohortResponseSchema = reportEnvelope(CohortRecordSchema);

/** The envelope of either report with its records unchecked; `parseReportResponse` checks them. */
const ReportEnvelopeSchema = reportEnvelope(z.unknown());
export interface ReportResponse extends Omit<z.output<typeof ReportEnvelopeSchema>, "data"> {
  data: ReportRecord[];
}

const isScalar = (v: unknown) => v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/**
 * Parses an upstream answer loosely enough for any honest server, strictly enough to trust: the
 * envelope with zod, the records with a plain loop rather than a zod schema per record, because a
 * page holds up to thousands of records and all they must be is flat objects of finite scalars.
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
