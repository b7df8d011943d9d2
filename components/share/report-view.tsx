import { formatInstant } from "@/lib/metrics/format";
import type { SharedView } from "@/lib/sharing/view";
import { PAGE_WIDTH } from "@/components/ui/page";
import { SharedChart } from "./shared-chart";

function chip(active: boolean): string {
  return `rounded-full border px-3 py-1 text-sm ${active ? "border-blue-700 bg-blue-700 text-white" : "border-slate-300 bg-white text-slate-800 hover:bg-slate-100"}`;
}

/** A report rendered read-only on the server: header in words, chart, table with totals. */
export function ReportView({ view, base }: { view: Extract<SharedView, { kind: "ok" }>; base: string }) {
  return (
    <main className={`${PAGE_WIDTH} space-y-4 py-4 sm:py-6`}>
      <header>
        <h1 className="text-xl font-semibold sm:text-2xl">{view.title}</h1>
        <dl className="mt-2 grid grid-cols-1 gap-x-6 gap-y-1 text-sm text-slate-700 sm:grid-cols-2">
          <div>
            <dt className="inline font-medium">Range: </dt>
            <dd className="inline" data-testid="share-range">
              {view.range.start} to {view.range.end} ({view.timeZone})
            </dd>
          </div>
          <div>
            <dt className="inline font-medium">Data as of: </dt>
            <dd className="inline">
              {formatInstant(view.asOf, view.timeZone)}
              {view.mode === "snapshot" ? " (snapshot)" : ""}
            </dd>
          </div>
          <div>
            <dt className="inline font-medium">Filters: </dt>
            <dd className="inline">{view.filters.length ? view.filters.join("; ") : "none"}</dd>
          </div>
          <div>
            <dt className="inline font-medium">Shared by: </dt>
            <dd className="inline">{view.sharedBy}</dd>
          </div>
        </dl>
        {view.allowedPresets.length > 0 ? (
          <nav aria-label="Date range" className="mt-3 flex flex-wrap gap-2">
            <a href={base} aria-current={view.preset === null ? "page" : undefined} className={chip(view.preset === null)}>
              As shared
            </a>
            {view.allowedPresets.map((p) => (
              <a key={p.id} href={`${base}?preset=${p.id}`} aria-current={view.preset === p.id ? "page" : undefined} className={chip(view.preset === p.id)}>
                {p.label}
              </a>
            ))}
          </nav>
        ) : null}
      </header>

      {view.chart ? <SharedChart chart={view.chart} /> : null}

      <section aria-label="Results" tabIndex={0} className="overflow-x-auto rounded border border-slate-200 bg-white">
        {view.records === 0 ? (
          <p className="p-4 text-sm text-slate-700">No data for this range.</p>
        ) : (
          <table className="min-w-full text-sm">
            <thead className="bg-slate-100">
              <tr>
                {view.table.columns.map((c) => (
                  <th key={c.id} scope="col" className={`px-3 py-2 font-medium whitespace-nowrap ${c.kind === "dimension" ? "text-left" : "text-right"}`}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {view.table.rows.map((r) => (
                <tr key={r.key} className="border-t border-slate-100">
                  {r.cells.map((cell, i) => (
                    <td key={i} className={`px-3 py-1.5 whitespace-nowrap tabular-nums ${view.table.columns[i]?.kind === "dimension" ? "text-left" : "text-right"}`}>
                      {cell.text}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot className="border-t-2 border-slate-300 bg-slate-50 font-semibold">
              <tr aria-label="Totals">
                {view.table.totals.cells.map((cell, i) => (
                  <td key={i} className={`px-3 py-2 whitespace-nowrap tabular-nums ${view.table.columns[i]?.kind === "dimension" ? "text-left" : "text-right"}`}>
                    {cell.text}
                  </td>
                ))}
              </tr>
            </tfoot>
          </table>
        )}
      </section>
    </main>
  );
}

