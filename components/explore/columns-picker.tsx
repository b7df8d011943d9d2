"use client";
import { metricsFor, type Operation } from "@/lib/contract/catalog";
import { isKpiId, kpisFor } from "@/lib/metrics/kpis";
import { defaultColumns } from "@/lib/report-state/explore";
import { Button } from "@/components/ui/button";
import { MultiSelect, type MultiSelectOption } from "@/components/ui/multi-select";

export const KPI_GROUP = "Derived KPIs";

/** The catalog's metrics in its groups (SPEC.md §2.3), then the derived KPIs of the registry. */
export function columnOptions(op: Operation): MultiSelectOption[] {
  return [
    ...metricsFor(op).map((m) => ({ value: m.name, label: m.label, group: m.group, description: m.description })),
    ...kpisFor(op).map((k) => ({ value: k.id, label: k.label, group: KPI_GROUP, description: k.description })),
  ];
}

export function ColumnsPicker({
  op,
  metrics,
  kpis,
  onChange,
}: {
  op: Operation;
  metrics: string[];
  kpis: string[];
  onChange: (next: { metrics: string[]; kpis: string[] }) => void;
}) {
  return (
    <MultiSelect
      label="Metrics"
      options={columnOptions(op)}
      selected={[...metrics, ...kpis]}
      onChange={(values) => onChange({ metrics: values.filter((v) => !isKpiId(v)), kpis: values.filter(isKpiId) })}
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
