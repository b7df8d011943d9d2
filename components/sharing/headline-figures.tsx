import { headlineFigures } from "@/lib/report/table/headline";
import type { TableModel } from "@/lib/report/table/table";
import { cn } from "@/components/ui/cn";

/**
 * A shared report's headline figures: each measure it asks for over the whole range, with its change
 * against the comparison, as cards before the chart and the table, so a phone opens on the answer
 * rather than on a drawing and a table wider than the screen. The figures are the table's totals.
 */
export function HeadlineFigures({ table }: { table: TableModel }) {
  const figures = headlineFigures(table);
  if (figures.length === 0) return null;
  return (
    <section aria-label="Headline figures">
      <ul className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-4">
        {figures.map((f) => (
          <li key={f.id} className="flex min-w-0 flex-col gap-0.5 rounded border border-slate-200 bg-white p-3" data-figure={f.id}>
            <span className="text-xs font-medium text-slate-700">{f.label}</span>
            <span className="text-lg font-semibold break-words text-slate-900 tabular-nums" title={f.value.note}>
              {f.value.text}
            </span>
            {f.changes.map((c) => (
              <span
                key={c.text}
                title={c.note}
                className={cn("text-sm break-words tabular-nums", c.tone === "good" ? "text-emerald-800" : c.tone === "bad" ? "text-red-800" : "text-slate-800")}
              >
                {c.text}
              </span>
            ))}
            {f.compared ? (
              <span className="text-xs break-words text-slate-700">
                {f.compared.label}: <span className="tabular-nums">{f.compared.text}</span>
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
