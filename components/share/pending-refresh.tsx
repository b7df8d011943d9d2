"use client";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

/**
 * A live report still being fetched: says how long that should take and reloads the page by itself
 * when it is due (and again, with the new estimate, if the answer is not in yet).
 */
export function PendingRefresh({ seconds }: { seconds: number }) {
  const router = useRouter();
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    const started = Date.now();
    const tick = setInterval(() => {
      const remaining = Math.max(0, seconds - Math.floor((Date.now() - started) / 1000));
      setLeft(remaining);
      if (remaining === 0) {
        clearInterval(tick);
        router.refresh();
      }
    }, 1000);
    return () => clearInterval(tick);
  }, [seconds, router]);
  return (
    <p role="status" aria-live="polite">
      The data is being fetched from the reporting service; it should be ready in about {seconds} seconds. This page updates by itself
      {left > 0 ? ` (checking again in ${left} s)` : " (checking now…)"}.
    </p>
  );
}
