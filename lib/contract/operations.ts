/**
 * The reporting operations, one row each: what they are called, what they answer, and where the
 * service and the dashboard serve them. The OpenAPI document, the service's routes, the upstream
 * client, the browser's report client, the report form and the Definitions page all read this table;
 * no other file spells an operation's path or label. Their schemas are in operation-schemas.ts,
 * keyed by the same operations: this table is imported by pages in the browser, which need a label,
 * not zod (about 30 KB gzipped on every report page). What the browser reads of it (labels and the
 * dashboard's paths) is ./operations-browser.ts, spread into each row here, so the browser does not
 * load the service's paths, the OpenAPI names and the messages.
 */
import { BROWSER_OPERATION_TABLE } from "./operations-browser";
import { OPERATIONS, type Operation } from "./operation-ids";

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
    ...BROWSER_OPERATION_TABLE.orders,
    summary: "Order summary by event date",
    message: "Order summary data retrieved successfully",
    servicePath: "/api/data",
    openapi: { request: "OrdersRequest", response: "OrdersResponse" },
  },
  cohort: {
    ...BROWSER_OPERATION_TABLE.cohort,
    summary: "Cohort summary by initial date",
    message: "Cohort summary data retrieved successfully (grouped by initial date)",
    servicePath: "/api/data/cohort",
    openapi: { request: "CohortRequest", response: "CohortResponse" },
  },
};

/** Every operation with its row, in catalog order. */
export const OPERATION_ROWS: readonly (OperationDef & { op: Operation })[] = OPERATIONS.map((op) => ({ op, ...OPERATION_TABLE[op] }));
