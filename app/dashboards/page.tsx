import type { Metadata } from "next";
import Link from "next/link";
import { requirePageUser } from "@/lib/core/auth/session";
import { savedReportItems } from "@/lib/features/saved-reports";
import { getStore } from "@/lib/core/store";
import { SavedReportList } from "@/components/saved-reports/saved-report-list";
import { LazyShareLinks } from "@/components/sharing/lazy-share-links";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Dashboards" };

/** Dashboards: the ones this user may open, with their owners and when they changed. */
export default async function DashboardsPage() {
  const user = await requirePageUser("/dashboards", "viewer");
  const items = (await savedReportItems(await getStore(), user)).filter((r) => r.page === "dashboard");
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Dashboards</h1>
        {user.role !== "viewer" ? (
          <Link href="/dashboards/new" className="rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800">
            New dashboard
          </Link>
        ) : null}
      </header>
      <div className="mt-4">
        <SavedReportList initial={items} shareLinks={LazyShareLinks} empty="No dashboards yet. An analyst creates one with “New dashboard”." />
      </div>
    </main>
  );
}
