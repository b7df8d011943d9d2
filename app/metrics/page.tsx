import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/session";
import { CELL_DEFINITIONS } from "@/lib/cohorts/grid";
import { DIMENSIONS, METRICS, type Operation } from "@/lib/contract/catalog";
import { COHORT_CELLS } from "@/lib/report-state/cohort";
import { KPIS, describeTerms, measureFor } from "@/lib/metrics/kpis";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Definitions" };

const opLabel: Record<Operation, string> = { orders: "Order summary", cohort: "Cohort" };

/** A KPI's formula in metric labels for one report: "Approvals ÷ Attempts"; null where it is not offered. */
function formula(id: string, op: Operation): string | null {
  const m = measureFor(id, op);
  if (!m || m.kind !== "kpi") return null;
  const side = (terms: NonNullable<typeof m.denominator>) => (terms.length > 1 ? `(${describeTerms(terms)})` : describeTerms(terms));
  return m.denominator ? `${side(m.numerator)} ÷ ${side(m.denominator)}` : describeTerms(m.numerator);
}

/** Glossary of every metric, KPI, cohort grid cell and dimension, straight from the catalog and the KPI registry. */
export default async function MetricsPage() {
  await requirePageUser("/metrics");
  return (
    <main className={`${PAGE_WIDTH} py-6`}>
      <h1 className="text-2xl font-semibold">Definitions</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">
        Metrics come from the reporting service; KPIs are computed from them as a ratio of sums (so a total&apos;s rate is
        the rate of the totals, never an average of rates); the cohort grid&apos;s cells are computed from cohort metrics.
      </p>
      <section className="mt-6" aria-labelledby="metrics-heading">
        <h2 id="metrics-heading" className="text-lg font-semibold">
          Metrics
        </h2>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-300">
              <tr>
                <th scope="col" className="py-2 pr-4">Name</th>
                <th scope="col" className="py-2 pr-4">Label</th>
                <th scope="col" className="py-2 pr-4">Unit</th>
                <th scope="col" className="py-2 pr-4">Dated by</th>
                <th scope="col" className="py-2 pr-4">Reports</th>
                <th scope="col" className="py-2">Definition</th>
              </tr>
            </thead>
            <tbody>
              {METRICS.map((m) => (
                <tr key={m.name} className="border-b border-slate-200">
                  <td className="py-2 pr-4 font-mono">{m.name}</td>
                  <td className="py-2 pr-4">{m.label}</td>
                  <td className="py-2 pr-4">{m.unit}</td>
                  <td className="py-2 pr-4">{m.dateBasis} date</td>
                  <td className="py-2 pr-4">{m.operations.map((o) => opLabel[o]).join(", ")}</td>
                  <td className="py-2">{m.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="mt-8" aria-labelledby="kpis-heading">
        <h2 id="kpis-heading" className="text-lg font-semibold">
          KPIs
        </h2>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-300">
              <tr>
                <th scope="col" className="py-2 pr-4">Name</th>
                <th scope="col" className="py-2 pr-4">Label</th>
                <th scope="col" className="py-2 pr-4">Unit</th>
                <th scope="col" className="py-2 pr-4">Order summary formula</th>
                <th scope="col" className="py-2 pr-4">Cohort formula</th>
                <th scope="col" className="py-2">Definition</th>
              </tr>
            </thead>
            <tbody>
              {KPIS.map((k) => (
                <tr key={k.id} className="border-b border-slate-200">
                  <td className="py-2 pr-4 font-mono">{k.id}</td>
                  <td className="py-2 pr-4">{k.label}</td>
                  <td className="py-2 pr-4">{k.format}</td>
                  <td className="py-2 pr-4">{formula(k.id, "orders") ?? "—"}</td>
                  <td className="py-2 pr-4">{formula(k.id, "cohort") ?? "—"}</td>
                  <td className="py-2">{k.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="mt-8" aria-labelledby="cells-heading">
        <h2 id="cells-heading" className="text-lg font-semibold">
          Cohort grid cells
        </h2>
        <dl className="mt-2 grid max-w-4xl grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[16rem_1fr]">
          {COHORT_CELLS.map((c) => (
            <div key={c} className="contents">
              <dt className="font-medium">{CELL_DEFINITIONS[c].label}</dt>
              <dd className="text-slate-700">{CELL_DEFINITIONS[c].description}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section className="mt-8" aria-labelledby="dimensions-heading">
        <h2 id="dimensions-heading" className="text-lg font-semibold">
          Dimensions
        </h2>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-300">
              <tr>
                <th scope="col" className="py-2 pr-4">Name</th>
                <th scope="col" className="py-2 pr-4">Label</th>
                <th scope="col" className="py-2 pr-4">Type</th>
                <th scope="col" className="py-2 pr-4">Reports</th>
                <th scope="col" className="py-2">Meaning</th>
              </tr>
            </thead>
            <tbody>
              {DIMENSIONS.map((d) => (
                <tr key={d.name} className="border-b border-slate-200">
                  <td className="py-2 pr-4 font-mono">{d.name}</td>
                  <td className="py-2 pr-4">{d.label}</td>
                  <td className="py-2 pr-4">{d.type}</td>
                  <td className="py-2 pr-4">{d.operations.map((o) => opLabel[o]).join(", ")}</td>
                  <td className="py-2">{d.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </main>
  );
}
