/**
 * The schemas of each reporting operation's request and answer, keyed by the operations of
 * operations.ts. Apart from that table so that browser code reading a label or a path does not load
 * zod; the service, the gateway and the OpenAPI document read these.
 */
import type { z } from "zod";
import type { Operation } from "./catalog";
import { CohortResponseSchema, OrdersResponseSchema } from "./envelope";
import { CohortRequestSchema, OrdersRequestSchema, reportQuerySchemaFor, type ReportQuery, type ReportRequest } from "./requests";

export interface OperationSchemas {
  /** The service's request schema (paging, the 100-day cap). */
  request: z.ZodType<ReportRequest, unknown>;
  /** The dashboard's request schema (no paging, ranges split into calls). */
  query: z.ZodType<ReportQuery, unknown>;
  /** The service's answer: the success envelope around this operation's records. */
  response: z.ZodType;
}

export const OPERATION_SCHEMAS: Readonly<Record<Operation, OperationSchemas>> = {
  orders: { request: OrdersRequestSchema, query: reportQuerySchemaFor("orders"), response: OrdersResponseSchema },
  cohort: { request: CohortRequestSchema, query: reportQuerySchemaFor("cohort"), response: CohortResponseSchema },
};
