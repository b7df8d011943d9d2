import type { Metadata } from "next";
import { Suspense } from "react";
import { todayIn } from "@/lib/contract/dates";
import { requirePageUser } from "@/lib/auth/session";
import { pathWithQuery } from "@/lib/report-state/encoding";
import { reportTimeZone } from "@/lib/report-timezone";
import { ExploreReport } from "@/components/explore/explore-report";
import { Providers } from "@/components/providers";
import { PageFallback } from "@/components/report/page-fallback";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Explore" };

/** Explore: order summaries (and cohort summaries) by any grouping, as a chart and a table. */
export default async function ExplorePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Analysts only (the report and routing APIs are); a link survives the sign-in detour with its query.
  await requirePageUser(pathWithQuery("/explore", await searchParams), "analyst");
  const timeZone = reportTimeZone();
  const today = todayIn(timeZone);
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">Explore</h1>
        <p className="mt-1 text-sm text-slate-700">
          Order summary by event date. Dates, presets and times are in the reporting time zone, <strong>{timeZone}</strong>; today there
          is {today}.
        </p>
      </header>
      <Providers>
        <Suspense fallback={<PageFallback />}>
          <ExploreReport timeZone={timeZone} today={today} />
        </Suspense>
      </Providers>
    </main>
  );
}
