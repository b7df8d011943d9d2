"use client";
/** The top bar's "Inbox (3 unread)" link; it asks for the count every minute. */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { INBOX_KEY, INBOX_REFRESH_MS, fetchInbox } from "./inbox-query";

export function InboxLink() {
  const q = useQuery({ queryKey: INBOX_KEY, queryFn: ({ signal }) => fetchInbox(signal), refetchInterval: INBOX_REFRESH_MS, staleTime: 0 });
  const unread = q.data?.unread ?? 0;
  return (
    <Link href="/inbox" className="whitespace-nowrap text-slate-800 hover:underline">
      Inbox
      {unread > 0 ? (
        <>
          {" "}
          <span className="font-semibold text-slate-900">({unread} unread)</span>
        </>
      ) : null}
    </Link>
  );
}
