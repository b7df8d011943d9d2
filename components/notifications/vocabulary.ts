/**
 * The alert forms' words from the catalog and the KPI registry (./model.ts AlertVocabulary), derived
 * by the server's render so the /alerts page loads neither: the measures' labels, formats and which
 * way each is better (a new rule's default condition), the target select's groups, and the order
 * summary's dimensions.
 */
import { dimensionsFor, metricsFor } from "@/lib/contract/catalog";
import { kpisFor, measureFor } from "@/lib/report/metrics/kpis";
import type { SelectGroup } from "@/components/ui/select";
import type { AlertVocabulary } from "./rule-words";

export function alertVocabulary(): AlertVocabulary {
  const measures: AlertVocabulary["measures"] = {};
  const add = (id: string) => {
    const m = measureFor(id, "orders");
    if (m) measures[id] = { label: m.label, format: m.format, better: m.better };
  };
  const kpis = kpisFor("orders");
  const metrics = metricsFor("orders");
  for (const k of kpis) add(k.id);
  for (const m of metrics) add(m.name);
  const measureGroups: SelectGroup[] = [{ label: "KPIs", options: kpis.map((k) => ({ value: `measure:${k.id}`, label: k.label })) }];
  const byGroup = new Map<string, SelectGroup>();
  for (const m of metrics) {
    let g = byGroup.get(m.group);
    if (!g) byGroup.set(m.group, (g = { label: `Metrics: ${m.group}`, options: [] }));
    g.options.push({ value: `measure:${m.name}`, label: m.label });
  }
  measureGroups.push(...byGroup.values());
  return { measures, measureGroups, dimensions: dimensionsFor("orders") };
}
