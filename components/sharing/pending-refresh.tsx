"use client";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { queueWords, type QueuePlace } from "@/lib/report-client/queue-words";

/**
 * A live report still being fetched: says where it waits in the queue (Explore's words, counted from
 * when the server looked, so the server's and the browser's drawing agree), how long that should
 * take, and reloads the page by itself when it is due (and again, with the new estimate, if the
 * answer is not in yet).
 */
export function PendingRefresh({ seconds, queue = null, checkedAt }: { seconds: number; queue?: QueuePlace | null; checkedAt?: string }) {
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
      {queue && checkedAt ? `Queued: ${queueWords(queue, Date.parse(checkedAt))}. ` : null}
      The data is being fetched from the reporting service; it should be ready in about {seconds} seconds. This page updates by itself
      {left > 0 ? ` (checking again in ${left} s)` : " (checking now…)"}.
    </p>
  );
}
