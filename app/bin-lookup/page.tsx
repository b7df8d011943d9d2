import type { Metadata } from "next";
import { requirePageUser } from "@/lib/core/auth/session";
import { pathWithQuery } from "@/lib/report/state/encoding";
import { reportTimeZone } from "@/lib/report/timezone";
import { BinLookup } from "@/components/bin-lookup/bin-lookup";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "BIN lookup" };

/** BIN lookup: which gateway a card BIN is routed to, and why. */
export default async function BinLookupPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Analysts only (the report and routing APIs are); a link survives the sign-in detour with its query.
  await requirePageUser(pathWithQuery("/bin-lookup", await searchParams), "analyst");
  const timeZone = reportTimeZone();
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">BIN lookup</h1>
        <p className="mt-1 text-sm text-slate-700">
          The gateway a card BIN is routed to, the routing group and rule that chose it, the group&apos;s rotation, and the card&apos;s issuer.
        </p>
      </header>
      {/* No react-query provider here: the parts that use it (the last 90 days, the bulk tab) bring one when loaded. */}
      <BinLookup timeZone={timeZone} />
    </main>
  );
}
