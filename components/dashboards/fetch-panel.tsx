import { getDimension, getMetric, type Operation } from "@/lib/contract/catalog";
import type { ReportQuery } from "@/lib/contract/requests";
import type { DashboardAnswer, PlanStep, QueryState } from "@/lib/features/dashboards/answer";
import { formatInstant } from "@/lib/report/metrics/format";
import { queueWordsAt } from "@/lib/report/client/queue-words";
import { cn } from "@/components/ui/cn";

const OPERATION_LABELS: Record<Operation, string> = { orders: "Order summary", cohort: "Cohort summary" };

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

const dimensionLabel = (d: string) => getDimension(d)?.label ?? d;

function filterText(query: ReportQuery): string {
  const entries = Object.entries(query.filters ?? {}).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "no filters";
  return entries
    .map(([d, v]) => {
      const values = (Array.isArray(v) ? v : [v]).map((x) => (x === null ? "(none)" : String(x)));
      return `${dimensionLabel(d)} ${values.join(" or ")}`;
    })
    .join("; ");
}

/** A query in words: its days, its grouping, how many metrics, its filters. */
export function queryText(query: ReportQuery): string {
  const by = query.group_by && query.group_by.length > 0 ? `by ${query.group_by.map(dimensionLabel).join(", ")}` : "not grouped";
  const metrics = query.metrics ? query.metrics : null;
  const m = metrics === null ? "all metrics" : metrics.length <= 3 ? `${plural(metrics.length, "metric")} (${metrics.map((x) => getMetric(x)?.label ?? x).join(", ")})` : plural(metrics.length, "metric");
  return `${query.start_date} to ${query.end_date}, ${by}, ${m}, ${filterText(query)}`;
}

function statusText(s: QueryState, timeZone: string): string {
  switch (s.state) {
    case "cached":
      return `From cache (fetched ${formatInstant(s.fetched_at, timeZone)})`;
    case "queued":
      return `Queued: ${queueWordsAt(s, timeZone)}`;
    case "fetching":
      return "Fetching…";
    case "done":
      return `Done at ${formatInstant(s.fetched_at, timeZone)}`;
    case "failed":
      return `Failed: ${s.message}`;
  }
}

function callsText(step: PlanStep): string {
  if (step.status.state === "cached") return "from cache";
  if (step.status.state === "failed") return step.calls > 0 ? plural(step.calls, "upstream call") : "no calls";
  if (!step.callsKnown) return `about ${plural(step.calls, "upstream call")}`;
  // Planned from a model of how many records the query has; the service's own count has the last word.
  const changed = step.plannedCalls > 0 && step.plannedCalls !== step.calls ? ` (planned ${step.plannedCalls.toLocaleString("en-US")}: the service said how many records each part holds)` : "";
  return `${plural(step.calls, "upstream call")}${changed}`;
}

/**
 * How the dashboard's tiles were answered: the few upstream queries they were planned into (or the
 * cache), where each stands, and which tiles each one serves; with what planning saved.
 */
export function FetchPanel({ answer, timeZone = "UTC" }: { answer: DashboardAnswer; timeZone?: string }) {
  const tiles = answer.tiles.length;
  return (
    <details className="rounded-md border border-slate-200 bg-white text-sm text-slate-800" data-testid="fetch-panel">
      <summary className="cursor-pointer px-3 py-2 font-medium text-slate-900">How this was fetched</summary>
      <div className="flex flex-col gap-3 border-t border-slate-200 px-3 py-3">
        <p>
          {plural(answer.plannedCalls, "upstream call")} for {plural(tiles, "tile")}; one call per tile would have cost {answer.naiveCalls.toLocaleString("en-US")}.
        </p>
        {answer.plan.length === 0 ? (
          <p className="text-slate-700">No queries: no tile could run.</p>
        ) : (
          <ol aria-label="Queries" className="flex flex-col gap-2">
            {answer.plan.map((step, i) => (
              <li key={i} className="rounded border border-slate-200 p-2" data-step={i + 1} data-status={step.status.state}>
                <p className="font-medium text-slate-900">
                  Query {i + 1}: {OPERATION_LABELS[step.op]}
                </p>
                <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-slate-800">
                  <dt className="font-medium text-slate-700">Asks for</dt>
                  <dd className="min-w-0 break-words">{queryText(step.query)}</dd>
                  <dt className="font-medium text-slate-700">Calls</dt>
                  <dd>{callsText(step)}</dd>
                  <dt className="font-medium text-slate-700">Status</dt>
                  <dd className={cn("min-w-0 break-words", step.status.state === "failed" && "text-red-800")}>{statusText(step.status, timeZone)}</dd>
                  <dt className="font-medium text-slate-700">Serves</dt>
                  <dd className="min-w-0">
                    {step.tiles.length === 0 ? (
                      "no tile"
                    ) : (
                      <ul className="flex flex-col">
                        {step.tiles.map((t) => (
                          <li key={t.index}>
                            Tile {t.index}: {t.title}
                          </li>
                        ))}
                      </ul>
                    )}
                  </dd>
                </dl>
              </li>
            ))}
          </ol>
        )}
      </div>
    </details>
  );
}
