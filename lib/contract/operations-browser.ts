/**
 * The part of the operation table (./operations.ts, which spreads it into each row) that the
 * browser reads: what an operation is called and where the dashboard runs it.
 */
import type { OperationDef } from "./operations";
import { OPERATIONS, type Operation } from "./operation-ids";

export type BrowserOperationDef = Pick<OperationDef, "label" | "shortLabel" | "dashboardPath">;

export const BROWSER_OPERATION_TABLE: Readonly<Record<Operation, BrowserOperationDef>> = {
  orders: {
    label: "Order summary (by event date)",
    shortLabel: "Order summary",
    dashboardPath: "/api/reports/order-summary",
  },
  cohort: {
    label: "Cohort summary (by initial date)",
    shortLabel: "Cohort",
    dashboardPath: "/api/reports/cohort",
  },
};

/** Every operation with its browser row, in catalog order. */
export const BROWSER_OPERATION_ROWS: readonly (BrowserOperationDef & { op: Operation })[] = OPERATIONS.map((op) => ({ op, ...BROWSER_OPERATION_TABLE[op] }));
