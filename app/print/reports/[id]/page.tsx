import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { serverEnv } from "@/lib/core/env/env";
import { loadReportPrintView, PRINT_TOKEN_HEADER } from "@/lib/features/sharing/pdf";
import { printFacts } from "@/lib/features/sharing/print-facts";
import { PrintView } from "@/components/sharing/print-view";

export const metadata: Metadata = { title: "Print", robots: { index: false, follow: false } };

type Props = { params: Promise<{ id: string }> };

/** A saved report's print view, for the dashboard's own PDF renderer: opened with a print token only. */
export default async function PrintReportPage({ params }: Props) {
  const { id } = await params;
  const view = await loadReportPrintView(id, (await headers()).get(PRINT_TOKEN_HEADER));
  if (!view) notFound();
  return <PrintView view={view} facts={printFacts(view, serverEnv().REPORT_TIMEZONE, new Date())} base={`/reports/${encodeURIComponent(id)}`} />;
}
