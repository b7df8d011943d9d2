/** The signed-in user's inbox (GET /api/inbox), one query shared by the top bar's link and the /inbox page. */
import { apiFetch } from "@/lib/report-client/api";
import type { InboxMessage } from "@/lib/store/inbox";

export type { InboxMessage };
export interface InboxAnswer {
  messages: InboxMessage[];
  unread: number;
}

export const INBOX_KEY = ["inbox"] as const;
/** The top bar asks again this often, so a new alert shows without reloading. */
export const INBOX_REFRESH_MS = 60_000;

export const fetchInbox = (signal?: AbortSignal) => apiFetch<InboxAnswer>("/api/inbox", signal ? { signal } : {});
