/**
 * What a shared report's files say above their table, on the share page's downloads and in a
 * scheduled e-mail's attachments alike: the report, its days as the link names them, the time zone,
 * the filters, its grain and comparison when set, how fresh its data is, and (on the share page) who
 * shared it.
 */
import { formatInstant } from "@/lib/report/metrics/format";
import type { SharedView } from "./view";

type ReportView = Extract<SharedView, { kind: "ok" }>;

export function reportLines(view: ReportView, opts: { sharedBy: boolean }): [string, string][] {
  return [
    ["Report", view.title],
    ["Range", `${view.rangeLabel}: ${view.range.start} to ${view.range.end}`],
    ["Timezone", view.timeZone],
    ["Filters", view.filters.length ? view.filters.join("; ") : "none"],
    ...(view.periods ? [["Periods", view.periods] as [string, string]] : []),
    ["Data as of", `${formatInstant(view.asOf, view.timeZone)}${view.mode === "snapshot" ? " (snapshot)" : ""}`],
    ...(opts.sharedBy ? [["Shared by", view.sharedBy] as [string, string]] : []),
  ];
}
