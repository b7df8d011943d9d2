/**
 * The reporting operations, one row each: what they are called, what they answer, where the
 * service and the dashboard serve them, and the schemas of their requests and answers. The OpenAPI
 * document, the service's routes, the upstream client, the browser's report client, the report form
 * and the Definitions page all read this table; no other file spells an operation's path or label.
 */
import type { z } from "zod";
import { OPERATIONS, type Operation } from "./catalog";
import { CohortResponseSchema, OrdersResponseSchema } from "./envelope";
import { OrdersRequestSchema, CohortRequestSchema, reportQuerySchemaFor, type ReportQuery, type ReportRequest } from "./requests";

export interface OperationDef {
  /** The report form's name for it. */
  label: string;
  /** Short, for tables ("Reports: Order summary, Cohort"). */
  shortLabel: string;
  /** The OpenAPI summary. */
  summary: string;
  /** The success envelope's `message` (SPEC.md §2, §3). */
  message: string;
  /** Where the service (or the hosted original) answers it. */
  servicePath: string;
  /** Where the dashboard runs it through its report gateway. */
  dashboardPath: string;
  /** The service's request schema (paging, the 100-day cap). */
  request: z.ZodType<ReportRequest, unknown>;
  /** The dashboard's request schema (no paging, ranges split into calls). */
  query: z.ZodType<ReportQuery, unknown>;
  /** The service's answer: the success envelope around this operation's records. */
  response: z.ZodType;
  /** The OpenAPI component names of its request and answer. */
  openapi: { request: string; response: string };
}

export const OPERATION_TABLE: Readonly<Record<Operation, OperationDef>> = {
  orders: {
    label: "Order summary (by event date)",
    shortLabel: "Order summary",
    summary: "Order summary by event date",
    message: "Order summary data retrieved successfully",
    servicePath: "/api/data",
    dashboardPath: "/api/reports/order-summary",
    request: OrdersRequestSchema,
    query: reportQuerySchemaFor("orders"),
    response: OrdersResponseSchema,
    openapi: { request: "OrdersRequest", response: "OrdersResponse" },
  },
  cohort: {
    label: "Cohort summary (by initial date)",
    shortLabel: "Cohort",
    summary: "Cohort summary by initial date",
    message: "Cohort summary data retrieved successfully (grouped by initial date)",
    servicePath: "/api/data/cohort",
    dashboardPath: "/api/reports/cohort",
    request: CohortRequestSchema,
    query: reportQuerySchemaFor("cohort"),
    response: CohortResponseSchema,
    openapi: { request: "CohortRequest", response: "CohortResponse" },
  },
};

/** Every operation with its row, in catalog order. */
export const OPERATION_ROWS: readonly (OperationDef & { op: Operation })[] = OPERATIONS.map((op) => ({ op, ...OPERATION_TABLE[op] }));
