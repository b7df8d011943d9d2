import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/session";
import { DIMENSIONS, METRICS, type Operation } from "@/lib/contract/catalog";

export const metadata: Metadata = { title: "Definitions" };

const opLabel: Record<Operation, string> = { orders: "Order summary", cohort: "Cohort" };

/** Glossary of every metric and dimension, straight from the contract's catalog. */
export default async function MetricsPage() {
  await requirePageUser("/metrics");
  return (
    <main className="mx-auto max-w-5xl p-6">
      <h1 className="text-2xl font-semibold">Definitions</h1>
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
