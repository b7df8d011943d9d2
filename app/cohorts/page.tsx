import type { Metadata } from "next";
import { cohortLook } from "@/lib/report/state/cohort";
import { searchParamsOf } from "@/lib/report/state/encoding";
import { CohortReport } from "@/components/cohorts/cohort-report";
import { ReportPage } from "@/components/report/report-page";

export const metadata: Metadata = { title: "Cohorts" };

/** Cohorts: retention by initial date and billing cycle. */
export default async function CohortsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = searchParamsOf(await searchParams);
  return (
    <ReportPage
      path="/cohorts"
      searchParams={searchParams}
      title="Cohorts"
      intro={(timeZone, today) => (
        <>
          Retention by initial date: customers grouped by the day, week or month of their first order, followed through their billing
          cycles. Dates are in the reporting time zone, {timeZone}; today there is {today}.
        </>
      )}
      // The page's look at its URL, as data.
      report={(timeZone, today) => <CohortReport timeZone={timeZone} today={today} looks={[[search.toString(), cohortLook(search, today)]]} />}
    />
  );
}
