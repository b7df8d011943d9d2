/**
 * The service's fact tables in one place: the list (from the catalog) and, for each event table, its
 * own date column and the derived table that copies each event with its attempt's columns
 * (service/data/derived.ts). The importer, the grain builder and the report columns read it.
 */
import { FACT_TABLES, type MetricSource } from "@/lib/contract/catalog";

export { FACT_TABLES };
export type FactTable = MetricSource;
export type EventTable = Exclude<FactTable, "attempts">;

export const EVENT_FACTS = {
  chargebacks: { date: "cb_date", facts: "chargeback_facts" },
  refunds: { date: "refund_date", facts: "refund_facts" },
  alerts: { date: "alert_date", facts: "alert_facts" },
} as const satisfies Record<EventTable, { date: string; facts: string }>;

export const EVENT_TABLES_LIST = Object.keys(EVENT_FACTS) as EventTable[];
