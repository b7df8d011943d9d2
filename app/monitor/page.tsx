import type { Metadata } from "next";
import { Suspense } from "react";
import { requirePageUser } from "@/lib/core/auth/session";
import { reportTimeZone } from "@/lib/report/timezone";
import { hasRole } from "@/lib/core/auth/roles";
import { MonitorReport } from "@/components/monitor/monitor-report";
import { PageFallback } from "@/components/report/page-fallback";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Monitor" };

/** Monitor: is any MID close to a card-network monitoring programme's threshold this month? */
export default async function MonitorPage() {
  const user = await requirePageUser("/monitor", "viewer");
  const timeZone = reportTimeZone();
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">Monitor</h1>
        <p className="mt-1 text-sm text-slate-700">
          Card-network programme ratios per MID and card brand for this month to date and the two months before, against the thresholds in
          force for each month, and the disputes that alerts caught. Dates are in the reporting time zone, <strong>{timeZone}</strong>.
        </p>
      </header>
      {/* No react-query provider: the Monitor fetches with its own small hook (its drill-down brings one). */}
      <Suspense fallback={<PageFallback />}>
        <MonitorReport timeZone={timeZone} canExplore={hasRole(user.role, "analyst")} />
      </Suspense>
    </main>
  );
}
