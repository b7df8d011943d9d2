"use client";
import { useRouter } from "next/navigation";
import { startTransition, useEffect, useRef, useState } from "react";
import { queueWords, type QueuePlace } from "@/lib/report/client/queue-words";

/** Looks in a row that brought no newer answer from the server before the page says it stopped. */
const MAX_SILENT_LOOKS = 4;
/**
 * How long a look may take before it is asked again: the server holds a look for a few seconds
 * while an answer is due, and a new look started before the last one lands would cancel it.
 */
const LOOK_TIMEOUT_S = 20;

/**
 * A live report still being fetched: says where it waits in the queue (Explore's words, counted from
 * when the server looked, so the server's and the browser's drawing agree), when it should be ready,
 * and asks the server again by itself `seconds` after each look lands, until the answer is in. A
 * look that does not land (the browser gave up on the refresh) is asked again after LOOK_TIMEOUT_S
 * rather than waited for forever; after MAX_SILENT_LOOKS such looks in a row it stops and says so,
 * with a button to look again.
 */
export function PendingRefresh({
  seconds,
  queue = null,
  checkedAt,
  children,
}: {
  seconds: number;
  queue?: QueuePlace | null;
  /** When the server looked (ISO): a look that brings a newer one reached the server. */
  checkedAt?: string;
  /** The waiting words, when the page says them itself (a dashboard's). */
  children?: React.ReactNode;
}) {
  const router = useRouter();
  const [round, setRound] = useState(0);
  // Looks that brought no newer answer, counted for the answer they started from; stopped once the
  // last of MAX_SILENT_LOOKS has had its LOOK_TIMEOUT_S too.
  const [silent, setSilent] = useState({ checkedAt, looks: 0, stopped: false });
  const current = silent.checkedAt === checkedAt;
  const looks = current ? silent.looks : 0;
  const stopped = current && silent.stopped;
  const ask = (sent: number) => {
    setSilent({ checkedAt, looks: sent, stopped: false });
    setRound((r) => r + 1);
    startTransition(() => router.refresh());
  };
  const look = () => (looks >= MAX_SILENT_LOOKS ? setSilent({ checkedAt, looks, stopped: true }) : ask(looks + 1));
  const again = () => ask(0);
  const status = stopped ? (
    <>
      This page stopped checking: the dashboard did not answer its last {MAX_SILENT_LOOKS} looks.{" "}
      <button type="button" onClick={again} className="rounded border border-slate-300 bg-white px-2 py-0.5 font-medium text-slate-900 hover:bg-slate-100">
        Check again
      </button>
    </>
  ) : (
    <Countdown key={`${checkedAt ?? ""}:${round}`} seconds={looks > 0 ? LOOK_TIMEOUT_S : seconds} looking={looks > 0} onDue={look} />
  );
  return (
    <div role="status" aria-live="polite" data-testid="pending-refresh" data-checked-at={checkedAt}>
      {children ? (
        <>
          {children}
          <p className="mt-1">{status}</p>
        </>
      ) : (
        <p>
          {queue && checkedAt ? `Queued: ${queueWords(queue, Date.parse(checkedAt))}. ` : null}
          The data is being fetched from the reporting service; it should be ready in about {seconds} seconds. {status}
        </p>
      )}
    </div>
  );
}

/** "This page updates by itself (checking again in 4 s)", and `onDue` once when the count ends. */
function Countdown({ seconds, looking, onDue }: { seconds: number; looking: boolean; onDue: () => void }) {
  const wait = Math.max(1, seconds);
  const [left, setLeft] = useState(wait);
  const due = useRef(onDue);
  useEffect(() => {
    due.current = onDue;
  });
  useEffect(() => {
    const started = Date.now();
    const tick = setInterval(() => {
      const remaining = Math.max(0, wait - Math.floor((Date.now() - started) / 1000));
      setLeft(remaining);
      if (remaining === 0) {
        clearInterval(tick);
        due.current();
      }
    }, 1000);
    return () => clearInterval(tick);
  }, [wait]);
  return <>This page updates by itself{left > 0 && !looking ? ` (checking again in ${left} s)` : " (checking now…)"}.</>;
}
