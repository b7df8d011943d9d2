import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { Suspense } from "react";
import { requirePageUser } from "@/lib/core/auth/session";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { pathWithQuery, searchParamsOf } from "@/lib/report/state/encoding";
import { reportTimeZone } from "@/lib/report/timezone";
import { canEdit, getVisibleReport } from "@/lib/features/saved-reports";
import { firstLookFor } from "@/lib/features/dashboards/service";
import { dashboardLook, starterQuery } from "@/lib/report/state/dashboard";
import { getGateway } from "@/lib/core/upstream";
import { getStore } from "@/lib/core/store";
import { serverEnv } from "@/lib/core/env/env";
import { noteLook } from "@/lib/features/warming/looks";
import { DashboardPage } from "@/components/dashboards/dashboard-page";
import { LazyShareLinks } from "@/components/sharing/lazy-share-links";
import { columnOptions } from "@/components/explore/column-options";
import { PageFallback } from "@/components/report/page-fallback";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Dashboard" };

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** A saved dashboard: viewers read it (under other dates and filters if they like), analysts edit it. */
export default async function SavedDashboardPage({ params, searchParams }: Props) {
  const { id } = await params;
  const search = await searchParams;
  const user = await requirePageUser(pathWithQuery(`/dashboards/${id}`, search), "viewer");
  const store = await getStore();
  let report;
  try {
    report = await getVisibleReport(store, user, id);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) notFound();
    throw e;
  }
  if (report.page !== "dashboard") notFound();
  const timeZone = reportTimeZone();
  const today = todayIn(timeZone);
  const query = searchParamsOf(search);
  const look = dashboardLook(query, today, report.params);
  const saved = starterQuery(look);
  if (saved !== null) redirect(`/dashboards/${encodeURIComponent(report.id)}?${saved}`);
  // What the cache holds is drawn into the HTML: a warm dashboard paints before hydration.
  const first = await firstLookFor(store, getGateway(), user, report, query, { timeZone });
  if (first) await noteLook(store, serverEnv(), user.id, { kind: "dashboard", params: first.params });
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="mb-4">
        <h1 className="text-2xl font-semibold">{report.name}</h1>
        <p className="mt-1 text-sm text-slate-700">
          By {report.ownerEmail}, changed {report.updatedAt.slice(0, 10)}. Dates are in the reporting time zone, <strong>{timeZone}</strong>; today there is {today}.
        </p>
      </header>
      <Suspense fallback={<PageFallback />}>
        <DashboardPage
          timeZone={timeZone}
          today={today}
          saved={{ id: report.id, name: report.name, params: report.params, canEdit: canEdit(user, report) }}
          canBuild={user.role !== "viewer"}
          first={first}
          looks={[[query.toString(), look]]}
          shareLinks={LazyShareLinks}
          {...(user.role !== "viewer" ? { columns: columnOptions() } : {})}
        />
      </Suspense>
    </main>
  );
}
