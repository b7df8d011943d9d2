import Link from "next/link";
import { requirePageUser } from "@/lib/auth/session";

export default async function HomePage() {
  await requirePageUser("/");
  return (
    <main className="mx-auto max-w-4xl p-6">
      <h1 className="text-2xl font-semibold">Payments Analytics</h1>
      <p className="mt-2 text-slate-600">
        Order summaries by event date, cohort retention by initial date, and BIN routing for subscription merchants.
      </p>
      <nav className="mt-6" aria-label="Sections">
        <ul className="list-disc pl-5">
          <li>
            <Link className="text-blue-700 underline" href="/explore">
              Explore
            </Link>{" "}
            order summaries by event date
          </li>
          <li>
            <Link className="text-blue-700 underline" href="/cohorts">
              Cohorts
            </Link>{" "}
            retention by initial date and billing cycle
          </li>
          <li>
            <Link className="text-blue-700 underline" href="/bin-lookup">
              BIN lookup
            </Link>{" "}
            which gateway a card BIN is routed to
          </li>
          <li>
            <Link className="text-blue-700 underline" href="/metrics">
              Metric and dimension definitions
            </Link>
          </li>
        </ul>
      </nav>
    </main>
  );
}
