import "server-only";
import { metricDescription, metricsFor, type Operation } from "@/lib/contract/catalog";
import { kpiDescription } from "@/lib/report/metrics/kpi-descriptions";
import { kpisFor } from "@/lib/report/metrics/kpis";
import type { MultiSelectOption } from "@/components/ui/multi-select";
import { KPI_GROUP, type ColumnOptions } from "./columns-picker";

/**
 * Explore's metric options for each report, with what each metric and KPI means (shown in the
 * picker's list and searched): built by the page's server render and handed to the form as data, so
 * neither the words nor the catalog and registry they come from are in the page's browser code
 *.
 */
export function columnOptions(): ColumnOptions {
  const forOp = (op: Operation): MultiSelectOption[] => [
    ...metricsFor(op).map((m) => ({ value: m.name, label: m.label, group: m.group, description: metricDescription(m.name) })),
    ...kpisFor(op).map((k) => ({ value: k.id, label: k.label, group: KPI_GROUP, description: kpiDescription(k.id) })),
  ];
  return { orders: forOp("orders"), cohort: forOp("cohort") };
}
