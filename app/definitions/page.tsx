import type { Metadata } from "next";
import { requirePageUser } from "@/lib/core/auth/session";
import { CELL_DEFINITIONS } from "@/lib/features/cohorts/grid";
import { DIMENSIONS, METRICS, METRIC_DESCRIPTIONS, dimensionDescription, type Operation } from "@/lib/contract/catalog";
import { OPERATION_TABLE } from "@/lib/contract/operations";
import { COHORT_CELLS } from "@/lib/report/state/cohort";
import { KPIS, describeTerms, measureFor } from "@/lib/report/metrics/kpis";
import { KPI_DESCRIPTIONS } from "@/lib/report/metrics/kpi-descriptions";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Definitions" };


/** A KPI's formula in metric labels for one report: "Approvals ÷ Attempts"; null where it is not offered. */
function formula(id: string, op: Operation): string | null {
  const m = measureFor(id, op);
  if (!m || m.kind !== "kpi") return null;
  const side = (terms: NonNullable<typeof m.denominator>) => (terms.length > 1 ? `(${describeTerms(terms)})` : describeTerms(terms));
  return m.denominator ? `${side(m.numerator)} ÷ ${side(m.denominator)}` : describeTerms(m.numerator);
}

/** One glossary table: a heading, column names, and rows whose first cell is the wire name. */
function Glossary({ id, title, columns, rows }: { id: string; title: string; columns: string[]; rows: { key: string; cells: React.ReactNode[] }[] }) {
  return (
    <section className="mt-8" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="text-lg font-semibold">
        {title}
      </h2>
      {/* Scrolls sideways on a phone: focusable, so the keyboard can scroll it too. */}
      <div className="mt-2 overflow-x-auto" tabIndex={0} role="region" aria-labelledby={`${id}-heading`}>
        <table className="w-full text-left text-sm">
          <thead className="border-b border-slate-300">
            <tr>
              {columns.map((c, i) => (
                <th key={c} scope="col" className={i < columns.length - 1 ? "py-2 pr-4" : "py-2"}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className="border-b border-slate-200">
                {r.cells.map((c, i) => (
                  <td key={i} className={i === 0 ? "py-2 pr-4 font-mono" : i < r.cells.length - 1 ? "py-2 pr-4" : "py-2"}>
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Glossary of every metric, KPI, cohort grid cell and dimension, straight from the catalog and the KPI registry. */
export default async function DefinitionsPage() {
  await requirePageUser("/definitions");
  const reports = (ops: readonly Operation[]) => ops.map((o) => OPERATION_TABLE[o].shortLabel).join(", ");
  return (
    <main className={`${PAGE_WIDTH} py-6`}>
      <h1 className="text-2xl font-semibold">Definitions</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">
        Metrics come from the reporting service; KPIs are computed from them as a ratio of sums (so a total&apos;s rate is
        the rate of the totals, never an average of rates); the cohort grid&apos;s cells are computed from cohort metrics.
      </p>
      <Glossary
        id="metrics"
        title="Metrics"
        columns={["Name", "Label", "Unit", "Dated by", "Reports", "Definition"]}
        rows={METRICS.map((m) => ({ key: m.name, cells: [m.name, m.label, m.unit, `${m.dateBasis} date`, reports(m.operations), METRIC_DESCRIPTIONS[m.name]] }))}
      />
      <Glossary
        id="kpis"
        title="KPIs"
        columns={["Name", "Label", "Unit", "Order summary formula", "Cohort formula", "Definition"]}
        rows={KPIS.map((k) => ({ key: k.id, cells: [k.id, k.label, k.format, formula(k.id, "orders") ?? "—", formula(k.id, "cohort") ?? "—", KPI_DESCRIPTIONS[k.id]] }))}
      />
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
      <Glossary
        id="dimensions"
        title="Dimensions"
        columns={["Name", "Label", "Type", "Reports", "Meaning"]}
        rows={DIMENSIONS.map((d) => ({ key: d.name, cells: [d.name, d.label, d.type, reports(d.operations), dimensionDescription(d.name)] }))}
      />
    </main>
  );
}
