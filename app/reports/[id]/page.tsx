import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { requirePageUser } from "@/lib/core/auth/session";
import { ApiError } from "@/lib/contract/errors";
import { getVisibleReport } from "@/lib/features/saved-reports";
import { loadSavedView } from "@/lib/features/sharing/view";
import { getStore } from "@/lib/core/store";
import { serverEnv } from "@/lib/core/env/env";
import { noteLook } from "@/lib/features/warming/looks";
import { PendingRefresh } from "@/components/sharing/lazy";
import { ReportView } from "@/components/sharing/report-view";

export const metadata: Metadata = { title: "Saved report" };

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** A saved report, read-only: how viewers open the reports shared with the team. */
export default async function SavedReportPage({ params, searchParams }: Props) {
  const { id } = await params;
  const user = await requirePageUser(`/reports/${id}`, "viewer");
  const preset = (await searchParams).preset;
  const store = await getStore();
  let report;
  try {
    report = await getVisibleReport(store, user, id);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) notFound();
    throw e;
  }
  // A saved Monitor is the Monitor: viewers may open it, always live.
  if (report.page === "monitor") redirect("/monitor");
  if (report.page === "dashboard") redirect(`/dashboards/${report.id}`);
  const view = await loadSavedView(report, typeof preset === "string" ? preset : null);
  if (view.kind === "ok" || view.kind === "pending") await noteLook(store, serverEnv(), user.id, { kind: report.page, params: report.params });
  if (view.kind !== "ok") {
    return (
      <main className="mx-auto max-w-md p-6">
        <h1 className="text-xl font-semibold">{report.name}</h1>
        <div className="mt-2 text-sm text-slate-700">
          {view.kind === "pending" ? <PendingRefresh key={view.checkedAt} seconds={view.retryAfterSeconds} queue={view.queue} checkedAt={view.checkedAt} /> : null}
        </div>
      </main>
    );
  }
  const pdf = `/api/saved-reports/${encodeURIComponent(id)}/pdf${view.preset ? `?preset=${view.preset}` : ""}`;
  return <ReportView view={view} base={`/reports/${id}`} pdfHref={pdf} />;
}
