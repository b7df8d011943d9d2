import type { Metadata } from "next";
import { Suspense } from "react";
import { todayIn } from "@/lib/contract/dates";
import { requirePageUser } from "@/lib/auth/session";
import { pathWithQuery } from "@/lib/report-state/encoding";
import { reportTimeZone } from "@/lib/report-timezone";
import { CohortReport } from "@/components/cohorts/cohort-report";
import { Providers } from "@/components/providers";
import { PageFallback } from "@/components/report/page-fallback";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Cohorts" };

/** Cohorts: retention by initial date and billing cycle. */
export default async function CohortsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Analysts only (the report and routing APIs are); a link survives the sign-in detour with its query.
  await requirePageUser(pathWithQuery("/cohorts", await searchParams), "analyst");
  const timeZone = reportTimeZone();
  const today = todayIn(timeZone);
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">Cohorts</h1>
        <p className="mt-1 text-sm text-slate-700">
          Retention by initial date: customers grouped by the day, week or month of their first order, followed through their billing
          cycles. Dates are in the reporting time zone, <strong>{timeZone}</strong>; today there is {today}.
        </p>
      </header>
      <Providers>
        <Suspense fallback={<PageFallback />}>
          <CohortReport timeZone={timeZone} today={today} />
        </Suspense>
      </Providers>
    </main>
  );
}
