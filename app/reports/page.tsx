import type { Metadata } from "next";
import { requirePageUser } from "@/lib/core/auth/session";
import { savedReportItems } from "@/lib/features/saved-reports";
import { getStore } from "@/lib/core/store";
import { SavedReportList } from "@/components/saved-reports/saved-report-list";
import { LazyShareLinks } from "@/components/sharing/lazy-share-links";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Saved reports" };

/** Saved reports: an analyst's own and the team's; viewers see the team's, read-only. */
export default async function ReportsPage() {
  const user = await requirePageUser("/reports", "viewer");
  const items = await savedReportItems(await getStore(), user);
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Saved reports</h1>
      <div className="mt-4">
        <SavedReportList initial={items} shareLinks={LazyShareLinks} />
      </div>
    </main>
  );
}
