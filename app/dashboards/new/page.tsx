import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { dashboardLook, starterQuery } from "@/lib/report/state/dashboard";
import { searchParamsOf } from "@/lib/report/state/encoding";
import { DashboardPage } from "@/components/dashboards/dashboard-page";
import { columnOptions } from "@/components/explore/column-options";
import { ReportPage } from "@/components/report/report-page";

export const metadata: Metadata = { title: "New dashboard" };

/** A dashboard being built: everything in its URL until it is saved. */
export default async function NewDashboardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = searchParamsOf(await searchParams);
  return (
    <ReportPage
      path="/dashboards/new"
      searchParams={searchParams}
      title="New dashboard"
      intro={(timeZone, today) => (
        <>
          Tiles share the date range, grain, comparison and filters set here. Dates are in the reporting time zone, {timeZone}; today there is {today}.
        </>
      )}
      report={(timeZone, today) => {
        const look = dashboardLook(search, today, null);
        const starter = starterQuery(look);
        if (starter !== null) redirect(`/dashboards/new?${starter}`);
        return <DashboardPage timeZone={timeZone} today={today} saved={null} canBuild looks={[[search.toString(), look]]} columns={columnOptions()} />;
      }}
    />
  );
}
