import Link from "next/link";
import { requirePageUser } from "@/lib/core/auth/session";
import { hasRole } from "@/lib/core/auth/roles";
import { SECTIONS, deniedNotice } from "@/lib/core/nav/sections";
import { PAGE_WIDTH } from "@/components/ui/page";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** Home: the sections this user's role opens, and why they were sent here when a page was not theirs. */
export default async function HomePage({ searchParams }: { searchParams: Search }) {
  const user = await requirePageUser("/");
  const denied = (await searchParams).denied;
  const notice = deniedNotice(Array.isArray(denied) ? denied[0] : denied, user.role);
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Payments Analytics</h1>
      {notice ? (
        <p role="alert" className="mt-3 max-w-3xl rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950">
          {notice}
        </p>
      ) : null}
      <p className="mt-2 max-w-3xl text-slate-600">
        Order summaries by event date, cohort retention by initial date, and BIN routing for subscription merchants.
      </p>
      <nav className="mt-6" aria-label="Sections">
        <ul className="list-disc pl-5">
          {SECTIONS.filter((s) => hasRole(user.role, s.role)).map((s) => (
            <li key={s.href}>
              <Link className="text-blue-700 underline" href={s.href}>
                {s.label}
              </Link>{" "}
              {s.purpose}
            </li>
          ))}
        </ul>
      </nav>
    </main>
  );
}
