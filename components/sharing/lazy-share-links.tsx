"use client";
import { lazyPart } from "@/components/ui/lazy-part";
import type { ShareLinksSlot } from "@/components/saved-reports/saved-report-list";

/**
 * The share links panel, loaded when it is first opened: with react-query, which the lists of saved
 * reports and dashboards need for nothing else. The placeholder is the panel's own box. The pages
 * that draw those lists and a saved dashboard pass it to them (`ShareLinksSlot`).
 */
export const LazyShareLinks: ShareLinksSlot = lazyPart(
  () => import("./share-links-panel").then((m) => m.ShareLinksPanel),
  <div className="mt-3 min-h-48 rounded border border-slate-200 bg-slate-50 p-3 text-sm text-slate-700">Loading the share links…</div>,
);
