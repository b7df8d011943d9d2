/**
 * The reporting operations, one row each: what they are called, what they answer, and where the
 * service and the dashboard serve them. The OpenAPI document, the service's routes, the upstream
 * client, the browser's report client, the report form and the Definitions page all read this table;
 * no other file spells an operation's path or label. Their zod schemas are in operation-schemas.ts,
 * with the request and answer schemas they are made of.
 */

export const OPERATIONS = ["orders", "cohort"] as const;
export type Operation = (typeof OPERATIONS)[number];

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
    openapi: { request: "OrdersRequest", response: "OrdersResponse" },
  },
  cohort: {
    label: "Cohort summary (by initial date)",
    shortLabel: "Cohort",
    summary: "Cohort summary by initial date",
    message: "Cohort summary data retrieved successfully (grouped by initial date)",
    servicePath: "/api/data/cohort",
    dashboardPath: "/api/reports/cohort",
    openapi: { request: "CohortRequest", response: "CohortResponse" },
  },
};

/** Every operation with its row, in catalog order. */
export const OPERATION_ROWS: readonly (OperationDef & { op: Operation })[] = OPERATIONS.map((op) => ({ op, ...OPERATION_TABLE[op] }));
