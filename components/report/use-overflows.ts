"use client";
import { useCallback, useState } from "react";

/**
 * Whether a scrolling box is wider inside than it is: then a table says it scrolls sideways. Give
 * the returned ref to the box; it is measured again whenever the box or its content changes size.
 */
export function useOverflows(): [(el: HTMLDivElement | null) => (() => void) | undefined, boolean] {
  const [overflows, setOverflows] = useState(false);
  const ref = useCallback((el: HTMLDivElement | null) => {
    if (!el || typeof ResizeObserver === "undefined") return;
    const check = () => setOverflows(el.scrollWidth > el.clientWidth + 1);
    check();
    const ro = new ResizeObserver(check);
    ro.observe(el);
    if (el.firstElementChild) ro.observe(el.firstElementChild);
    return () => ro.disconnect();
  }, []);
  return [ref, overflows];
}
