"use client";
/** The top bar's "Inbox (3 unread)" link; it asks for the count at once and every minute. */
import Link from "next/link";
import { useEffect } from "react";
import { refreshInbox, useInbox } from "./inbox-query";

export function InboxLink() {
  const { data } = useInbox();
  useEffect(() => {
    void refreshInbox();
  }, []);
  const unread = data?.unread ?? 0;
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
