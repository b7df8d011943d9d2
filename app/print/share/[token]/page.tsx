import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { serverEnv } from "@/lib/core/env/env";
import { shareVisitor } from "@/lib/features/sharing/http";
import { loadSharedView } from "@/lib/features/sharing/view";
import { PRINT_TOKEN_HEADER, PRINT_WAIT_MS, sharePrintAllowed } from "@/lib/features/sharing/pdf";
import { printFacts } from "@/lib/features/sharing/print-facts";
import { PrintView } from "@/components/sharing/print-view";

export const metadata: Metadata = { title: "Print", robots: { index: false, follow: false }, referrer: "no-referrer" };

type Props = { params: Promise<{ token: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * A share link's print view, for the dashboard's own PDF renderer only (opened with its print token,
 * so every visit is one of the renderer's bounded renders): every check of the share page, as the
 * share page makes them.
 */
export default async function PrintSharePage({ params, searchParams }: Props) {
  const { token } = await params;
  const preset = (await searchParams).preset;
  if (!sharePrintAllowed(token, (await headers()).get(PRINT_TOKEN_HEADER))) notFound();
  const view = await loadSharedView(token, { preset: typeof preset === "string" ? preset : null, ...(await shareVisitor()), wait: { ms: PRINT_WAIT_MS, acceptStale: false } });
  if (view.kind === "unknown") notFound();
  return <PrintView view={view} facts={printFacts(view, serverEnv().REPORT_TIMEZONE, new Date())} base={`/share/${encodeURIComponent(token)}`} />;
}
