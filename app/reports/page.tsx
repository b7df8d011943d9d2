import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/session";
import { canEdit } from "@/lib/sharing/service";
import { getStore } from "@/lib/store";
import { savedReportsRepo } from "@/lib/store/saved-reports";
import { SavedReportList } from "@/components/saved/saved-report-list";
import { Providers } from "@/components/providers";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Saved reports" };

/** Saved reports: an analyst's own and the team's; viewers see the team's, read-only. */
export default async function ReportsPage() {
  const user = await requirePageUser("/reports", "viewer");
  const reports = await savedReportsRepo(await getStore()).listVisible(user);
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Saved reports</h1>
      <div className="mt-4">
        <Providers>
        <SavedReportList
          initial={reports.map((r) => ({
            id: r.id,
            name: r.name,
            page: r.page,
            params: r.params,
            ownerEmail: r.ownerEmail,
            sharedWithTeam: r.sharedWithTeam,
            updatedAt: r.updatedAt,
            canEdit: canEdit(user, r),
            canBuild: user.role !== "viewer",
          }))}
        />
        </Providers>
      </div>
    </main>
  );
}
