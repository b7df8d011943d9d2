"use client";
import { useCallback, useEffect, useState } from "react";

/**
 * A box's width in whole pixels, for a chart drawn to it: read when the box is attached, before the
 * first paint (so the chart is drawn in the frame it mounts in rather than one observer callback
 * later), and followed as it changes (a phone turned, a window resized: a width read once left a
 * desktop-wide chart on a phone). Give the returned ref to the box; undefined until it is measured
 * (the server's render too). A callback ref, so a box that mounts later (after an answer arrives) is
 * measured when it does.
 */
export function useBoxWidth<T extends HTMLElement>(): readonly [(el: T | null) => void, number | undefined] {
  const [box, setBox] = useState<T | null>(null);
  const [width, setWidth] = useState<number | undefined>(undefined);
  const ref = useCallback((el: T | null) => {
    setBox(el);
    if (el) setWidth(Math.floor(el.getBoundingClientRect().width));
  }, []);
  useEffect(() => {
    if (!box) return;
    const observer = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined) setWidth(Math.floor(w));
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, [box]);
  return [ref, width] as const;
}
