"use client";
import { lazy, Suspense, type ComponentProps } from "react";

/**
 * The share links panel, loaded when it is first opened: with react-query, which the lists of saved
 * reports and dashboards need for nothing else. The placeholder is the panel's own box. React's own
 * lazy: the server never draws the panel, so next/dynamic would only add its code to the page.
 */
const LazyPanel = lazy(() => import("./share-links-panel").then((m) => ({ default: m.ShareLinksPanel })));

export function LazyShareLinks(props: ComponentProps<typeof LazyPanel>) {
  return (
    <Suspense
      fallback={
        <div className="mt-3 min-h-48 rounded border border-slate-200 bg-slate-50 p-3 text-sm text-slate-700">
          Loading the share links…
        </div>
      }
    >
      <LazyPanel {...props} />
    </Suspense>
  );
}
