"use client";
import { lazy, Suspense, type ComponentProps } from "react";

// Shown only for a link the page cannot apply, so not in the pages' first load: the server
// draws it into such a link's HTML, and its code comes right after to make its button work.
const LazyUrlProblems = lazy(() => import("./url-problems").then((m) => ({ default: m.UrlProblems })));

export function UrlProblems(props: ComponentProps<typeof LazyUrlProblems>) {
  return (
    <Suspense fallback={null}>
      <LazyUrlProblems {...props} />
    </Suspense>
  );
}
