import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { shareVisitor } from "@/lib/features/sharing/http";
import { loadSharedView } from "@/lib/features/sharing/view";
import { SharedMonitor } from "@/components/sharing/shared-monitor";
import { PendingRefresh } from "@/components/sharing/lazy";
import { ReportView } from "@/components/sharing/report-view";
import { SharedDashboardView } from "@/components/sharing/shared-dashboard";

export const metadata: Metadata = { title: "Shared report", robots: { index: false, follow: false }, referrer: "no-referrer" };

type Props = { params: Promise<{ token: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** A shared report, read-only and without an account: only what the link allows. */
export default async function SharePage({ params, searchParams }: Props) {
  const { token } = await params;
  const sp = await searchParams;
  const view = await loadSharedView(token, { preset: one(sp.preset) ?? null, ...(await shareVisitor()) });

  // An unknown token is a 404, on the page as on the API (and answers alike whatever was guessed).
  if (view.kind === "unknown") notFound();
  if (view.kind === "monitor") return <SharedMonitor view={view} />;
  const pdf = `/api/share/${encodeURIComponent(token)}/pdf${view.kind === "dashboard" || view.kind === "ok" ? (view.preset ? `?preset=${view.preset}` : "") : ""}`;
  if (view.kind === "dashboard") return <SharedDashboardView view={view} base={`/share/${encodeURIComponent(token)}`} pdfHref={pdf} />;
  if (view.kind !== "ok") return <Notice view={view} token={token} error={one(sp.error)} />;

  return <ReportView view={view} base={`/share/${encodeURIComponent(token)}`} pdfHref={pdf} />;
}

function Notice({ view, token, error }: { view: Exclude<Awaited<ReturnType<typeof loadSharedView>>, { kind: "ok" | "monitor" | "dashboard" }>; token: string; error: string | undefined }) {
  const box = (title: string, body: React.ReactNode) => (
    <main className="mx-auto max-w-md p-6">
      <h1 className="text-xl font-semibold">{title}</h1>
      <div className="mt-2 text-sm text-slate-700">{body}</div>
    </main>
  );
  switch (view.kind) {
    case "locked":
      return box(
        "This report is protected",
        <form method="post" action={`/api/share/${encodeURIComponent(token)}/unlock`} className="mt-3 space-y-3">
          {error ? (
            <p role="alert" className="text-red-800">
              {error === "throttled" ? "Too many attempts. Try again in 15 minutes." : "That link or password is not right."}
            </p>
          ) : null}
          <label htmlFor="share-password" className="block font-medium text-slate-900">
            Password
          </label>
          <input id="share-password" name="password" type="password" required autoComplete="current-password" className="w-full rounded border border-slate-300 px-3 py-2" />
          <button type="submit" className="rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800">
            Open report
          </button>
        </form>,
      );
    case "pending":
      return box(view.title, <PendingRefresh key={view.checkedAt} seconds={view.retryAfterSeconds} queue={view.queue} checkedAt={view.checkedAt} />);
    case "expired":
      return box("This link has expired", <p>Ask whoever sent it for a new one.</p>);
    case "revoked":
      return box("This link has been revoked", <p>Ask whoever sent it for a new one.</p>);
    case "paused":
      return box(
        "This link is paused",
        <p>The person who shared this report may no longer share it, so the link does not open for now. Ask whoever sent it for a new one.</p>,
      );
    case "throttled":
      return box("Too many attempts", <p>Try again in 15 minutes.</p>);

  }
}
