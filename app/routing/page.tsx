import type { Metadata } from "next";
import { requirePageUser } from "@/lib/core/auth/session";
import { reportTimeZone } from "@/lib/report/timezone";
import { RoutingWorkspace } from "@/components/routing/lazy-workspace";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Routing" };

/** The routing workspace: the live BIN routing configuration, its versions, and changes to it under review. */
export default async function RoutingPage() {
  // Analysts read; editing (admins, the routing permission) is decided by the API, which the page asks.
  await requirePageUser("/routing", "analyst");
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">Routing</h1>
        <p className="mt-1 max-w-prose text-sm text-slate-700">
          The live BIN routing configuration, every earlier version, changes under review, and what the order data says about them: proposals from the last 90
          days and the rates measured after each change.
        </p>
      </header>
      <RoutingWorkspace timeZone={reportTimeZone()} />
    </main>
  );
}
