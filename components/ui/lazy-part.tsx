"use client";
import { lazy, Suspense, type ComponentType, type ReactNode } from "react";

/**
 * The one way a page loads a whole feature after its first load (README, "Lazy loading"): the part's
 * code is a chunk of its own, asked for when the part is first drawn or when `preload` is called
 * (as soon as the page knows it will draw it, so the code travels beside the data it will show).
 * The server draws the part into the HTML as usual; its script comes after the page's and hydrates
 * it then. Until the code has come, `fallback` stands in its place, drawn in the part's own box so
 * nothing moves. React's own lazy rather than next/dynamic: next/dynamic puts the part's chunk in the
 * page's HTML as a preload, which counts it in the first load this exists to keep small.
 *
 * `load` must name its module in a literal `import("…")`, which is what makes the chunk.
 */
export function lazyPart<P extends object>(
  load: () => Promise<ComponentType<P>>,
  fallback: ReactNode | ((props: P) => ReactNode),
): ComponentType<P> & { preload: () => void } {
  let loading: Promise<ComponentType<P>> | null = null;
  const get = () => (loading ??= load());
  const Lazy = lazy(() => get().then((part) => ({ default: part })));
  function LazyPart(props: P) {
    return (
      <Suspense fallback={typeof fallback === "function" ? fallback(props) : fallback}>
        <Lazy {...props} />
      </Suspense>
    );
  }
  return Object.assign(LazyPart, { preload: () => void get() });
}
