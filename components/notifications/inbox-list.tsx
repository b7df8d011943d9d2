"use client";
/**
 * The user's messages from alerts and scheduled reports, newest first: unread ones marked by a bar,
 * bold title and the word "Unread"; each can be marked read, or all at once. The top bar's count
 * follows (the same store).
 */
import { useEffect, useState } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { formatInstant } from "@/lib/report/metrics/format";
import { Button } from "@/components/ui/button";
import { refreshInbox, seedInbox, setInboxReader, updateInbox, useInbox, type InboxAnswer, type InboxMessage } from "./inbox-query";

// Once the list is loaded, the inbox is read through the API client: the list shows a failed read's
// message as every other page does. (Set as the module loads, before any component reads.)
setInboxReader(() => apiFetch<InboxAnswer>("/api/notifications/inbox"));

const SOURCE: Record<string, string> = { alert: "Alert", subscription: "Scheduled report" };

/** Only links into the dashboard or to the web: anything else is not offered as a link. */
function safeLink(link: string | null): string | null {
  if (!link) return null;
  if (link.startsWith("/") && !link.startsWith("//")) return link;
  return /^https?:\/\//i.test(link) ? link : null;
}

export function InboxList({ initial, timeZone }: { initial: InboxAnswer; timeZone: string }) {
  const inbox = useInbox();
  useEffect(() => seedInbox(initial), [initial]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const { messages, unread } = inbox.data ?? initial;

  const markRead = async (m: InboxMessage | null) => {
    setBusy(true);
    setError(null);
    try {
      const r = await apiFetch<{ marked: number; unread: number }>("/api/notifications/inbox/read", { method: "POST", body: m ? { id: m.id } : {} });
      // Shown at once, then confirmed by a fresh read.
      updateInbox((cur) => {
        const shown: InboxAnswer = cur ?? initial;
        return { unread: r.unread, messages: shown.messages.map((x) => (!m || x.id === m.id ? { ...x, readAt: x.readAt ?? new Date().toISOString() } : x)) };
      });
      void refreshInbox();
      setStatus(m ? `“${m.title}” marked read.` : `${r.marked} message${r.marked === 1 ? "" : "s"} marked read.`);
    } catch (e) {
      setError(e instanceof Error ? e.message : "Could not mark it read.");
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-3">
        <p className="text-sm text-slate-900">
          {messages.length === 0 ? "No messages." : `${messages.length} message${messages.length === 1 ? "" : "s"}, ${unread} unread.`}
        </p>
        {unread > 0 ? (
          <Button size="sm" disabled={busy} onClick={() => void markRead(null)}>
            Mark all read
          </Button>
        ) : null}
      </div>
      <p role="status" className="min-h-5 text-sm text-slate-900">
        {status}
      </p>
      {error || inbox.error ? (
        <p role="alert" className="text-sm text-red-800">
          {error ?? `Could not refresh the inbox: ${inbox.error instanceof Error ? inbox.error.message : String(inbox.error)}`}
        </p>
      ) : null}
      {messages.length === 0 ? (
        <p className="text-sm text-slate-700">Alerts that fire and scheduled reports sent to you appear here.</p>
      ) : (
        <ul aria-label="Messages" className="flex flex-col gap-3">
          {messages.map((m) => {
            const isUnread = m.readAt === null;
            const link = safeLink(m.link);
            return (
              <li key={m.id} className={`rounded-md border bg-white p-4 ${isUnread ? "border-l-4 border-slate-300 border-l-blue-700" : "border-slate-200"}`}>
                <article aria-labelledby={`inbox-${m.id}-title`}>
                  <div className="flex flex-wrap items-start justify-between gap-2">
                    <div className="min-w-0">
                      <h2 id={`inbox-${m.id}-title`} className={`text-base text-slate-900 ${isUnread ? "font-bold" : "font-medium"}`}>
                        {isUnread ? (
                          <>
                            <span className="mr-1 rounded bg-blue-700 px-1.5 py-0.5 align-middle text-xs font-semibold text-white">Unread</span>{" "}
                          </>
                        ) : null}
                        {m.title}
                      </h2>
                      <p className="text-xs text-slate-700">
                        {SOURCE[m.sourceKind] ?? m.sourceKind} · <time dateTime={m.createdAt}>{formatInstant(m.createdAt, timeZone)}</time>
                        {isUnread ? null : " · read"}
                      </p>
                    </div>
                    <div className="flex flex-wrap gap-2">
                      {link ? (
                        <a href={link} className="inline-flex min-h-8 items-center rounded-md border border-slate-300 bg-white px-2.5 text-sm font-medium text-blue-800 underline hover:bg-slate-100" aria-label={`Open ${m.title}`}>
                          Open
                        </a>
                      ) : null}
                      {isUnread ? (
                        <Button size="sm" disabled={busy} aria-label={`Mark read: ${m.title}`} onClick={() => void markRead(m)}>
                          Mark read
                        </Button>
                      ) : null}
                    </div>
                  </div>
                  <p className="mt-2 text-sm whitespace-pre-line break-words text-slate-900">{m.body}</p>
                </article>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
