import type { ReactNode } from "react";
import { Suspense } from "react";
import { todayIn } from "@/lib/contract/dates";
import { requirePageUser } from "@/lib/core/auth/session";
import { pathWithQuery } from "@/lib/report/state/encoding";
import { reportTimeZone } from "@/lib/report/timezone";
import { PageFallback } from "@/components/report/page-fallback";
import { PAGE_WIDTH } from "@/components/ui/page";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * The frame every report page shares: analysts only (the report APIs are), a link that survives the
 * sign-in detour with its query, a heading, and the reporting time zone and today's date resolved
 * once on the server and handed to the report, so no component works out a time zone of its own.
 */
export async function ReportPage({
  path,
  searchParams,
  title,
  intro,
  report,
}: {
  path: string;
  searchParams: SearchParams;
  title: string;
  intro: (timeZone: ReactNode, today: string) => ReactNode;
  report: (timeZone: string, today: string) => ReactNode;
}) {
  await requirePageUser(pathWithQuery(path, await searchParams), "analyst");
  const timeZone = reportTimeZone();
  const today = todayIn(timeZone);
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">{title}</h1>
        <p className="mt-1 text-sm text-slate-700">{intro(<strong>{timeZone}</strong>, today)}</p>
      </header>
      <Suspense fallback={<PageFallback />}>{report(timeZone, today)}</Suspense>
    </main>
  );
}
