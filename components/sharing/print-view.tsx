import type { SharedView } from "@/lib/features/sharing/view";
import type { PrintFacts } from "@/lib/features/sharing/print-facts";
import { PAGE_WIDTH } from "@/components/ui/page";
import { ReportView } from "./report-view";
import { SharedDashboardView } from "./shared-dashboard";
import { SharedMonitor } from "./shared-monitor";

/**
 * A report, dashboard or Monitor as its PDF prints it: the page as shown (in the light scheme, its
 * buttons left out by the print stylesheet), beneath a line saying when the PDF was made and, for a
 * snapshot, that it is one. The `data-pdf-*` attributes tell the renderer whether the page is whole
 * and what every page's header says (lib/features/sharing/print-facts.ts); a page that is not whole shows
 * why and is not printed.
 */
export function PrintView({ view, facts, base }: { view: SharedView; facts: PrintFacts; base: string }) {
  return (
    <div
      data-pdf-state={facts.state}
      data-pdf-title={facts.title}
      data-pdf-subtitle={facts.subtitle}
      data-pdf-generated={facts.generated}
      data-pdf-as-of={facts.asOf}
      data-pdf-snapshot={facts.snapshot}
      data-pdf-retry-after={facts.retryAfter}
      data-pdf-reason={facts.reason}
      data-pdf-refusal={facts.refusal}
    >
      {facts.state === "ready" ? (
        <>
          <p className={`${PAGE_WIDTH} pt-2 text-xs text-slate-700`} data-testid="pdf-generated">
            {facts.generated}
            {facts.snapshot ? <strong className="ml-2 font-semibold text-slate-900">{facts.snapshot}: the numbers as they were then, not as they are now.</strong> : null}
          </p>
          {view.kind === "ok" ? <ReportView view={view} base={base} /> : null}
          {view.kind === "dashboard" ? <SharedDashboardView view={view} base={base} /> : null}
          {view.kind === "monitor" ? <SharedMonitor view={view} /> : null}
        </>
      ) : (
        <main className="mx-auto max-w-md p-6">
          <h1 className="text-xl font-semibold">{facts.title || "Not printed"}</h1>
          <p className="mt-2 text-sm text-slate-700">{facts.reason}</p>
        </main>
      )}
    </div>
  );
}
