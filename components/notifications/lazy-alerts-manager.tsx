"use client";
/**
 * The alerts page's lists and forms, loaded as a whole: the server draws them on first load, their
 * code comes after the page's and hydrates them then (a click before that is replayed by React once
 * it has).
 */
import { lazyPart } from "@/components/ui/lazy-part";

export const AlertsManager = lazyPart(
  () => import("./alerts-manager").then((m) => m.AlertsManager),
  <p className="py-4 text-sm text-slate-700">Loading the alert rules and scheduled reports…</p>,
);
