"use client";
import type { Operation } from "@/lib/contract/operations";
import { defaultColumns } from "@/lib/report/state/explore";
import { Button } from "@/components/ui/button";
import { MultiSelect, type MultiSelectOption } from "@/components/ui/multi-select";

export const KPI_GROUP = "Derived KPIs";

/**
 * Each report's metric options (./column-options.ts builds them on the server): the catalog's metrics
 * in its groups, then the derived KPIs, each with what it means. Data from the page's server render,
 * so the form does not load the metrics' catalog and the KPI registry to list them.
 */
export type ColumnOptions = Readonly<Record<Operation, readonly MultiSelectOption[]>>;

export function ColumnsPicker({
  options,
  op,
  metrics,
  kpis,
  onChange,
}: {
  options: ColumnOptions;
  op: Operation;
  metrics: string[];
  kpis: string[];
  onChange: (next: { metrics: string[]; kpis: string[] }) => void;
}) {
  const shown = options[op];
  // The report's KPIs are the options in the KPI group (every one the registry offers this report).
  const kpiIds = new Set(shown.filter((o) => o.group === KPI_GROUP).map((o) => o.value));
  return (
    <MultiSelect
      label="Metrics"
      options={shown}
      selected={[...metrics, ...kpis]}
      onChange={(values) => onChange({ metrics: values.filter((v) => !kpiIds.has(v)), kpis: values.filter((v) => kpiIds.has(v)) })}
      actions={(close) => (
        <Button
          size="sm"
          variant="ghost"
          onClick={() => {
            onChange(defaultColumns(op));
            close();
          }}
        >
          Reset to defaults
        </Button>
      )}
    />
  );
}
