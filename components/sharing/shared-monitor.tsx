import { MonitorBody } from "@/components/monitor/monitor-body";
import type { SharedView } from "@/lib/features/sharing/view";
import { PAGE_WIDTH } from "@/components/ui/page";

/** A shared Monitor: the same tables as the page, read-only, without the drill-down (it needs an account); drawn on the server. */
export function SharedMonitor({ view }: { view: Extract<SharedView, { kind: "monitor" }> }) {
  return (
    <main className={`${PAGE_WIDTH} space-y-4 py-4 sm:py-6`}>
      <header>
        <h1 className="text-xl font-semibold sm:text-2xl">{view.title}</h1>
        <p className="mt-1 text-base text-slate-800" data-testid="share-subtitle">
          Monitor: this month to date ({view.answer.today}) and the two months before, {view.timeZone}. Shared by {view.sharedBy}.
        </p>
      </header>
      <div className="flex flex-col gap-6">
        <MonitorBody answer={view.answer} onOpen={null} />
      </div>
    </main>
  );
}
