import type { Metadata } from "next";
import { ExploreReport } from "@/components/explore/explore-report";
import { ReportPage } from "@/components/report/report-page";

export const metadata: Metadata = { title: "Explore" };

/** Explore: order summaries (and cohort summaries) by any grouping, as a chart and a table. */
export default function ExplorePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
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
      report={(timeZone, today) => <ExploreReport timeZone={timeZone} today={today} />}
    />
  );
}
