import type { Metadata } from "next";
import { exploreLook } from "@/lib/report/state/explore";
import { searchParamsOf } from "@/lib/report/state/encoding";
import { columnOptions } from "@/components/explore/column-options";
import { ExploreReport } from "@/components/explore/explore-report";
import { ReportPage } from "@/components/report/report-page";

export const metadata: Metadata = { title: "Explore" };

/** Explore: order summaries (and cohort summaries) by any grouping, as a chart and a table. */
export default async function ExplorePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = searchParamsOf(await searchParams);
  return (
    <ReportPage
      path="/explore"
      searchParams={searchParams}
      title="Explore"
      intro={(timeZone, today) => (
        <>
          Order summary by event date. Dates, presets and times are in the reporting time zone, {timeZone}; today there is {today}.
        </>
      )}
      // The page's look at its URL, and the metric picker's options, as data.
      report={(timeZone, today) => <ExploreReport timeZone={timeZone} today={today} looks={[[search.toString(), exploreLook(search, today)]]} columns={columnOptions()} />}
    />
  );
}
