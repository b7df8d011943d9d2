/**
 * The signed-in user's inbox (GET /api/notifications/inbox): one small store shared by the top bar's link and the
 * /inbox page, so marking a message read moves the count at once. It asks again every minute while
 * something shows it. A store of its own rather than react-query, and no API client until the inbox
 * page: the top bar is on every page, and most pages need neither before the user does something.
 */
import { useSyncExternalStore } from "react";
import type { InboxMessage } from "@/lib/features/notifications/model";

export type { InboxMessage };
export interface InboxAnswer {
  messages: InboxMessage[];
  unread: number;
}

/** The top bar asks again this often, so a new alert shows without reloading. */
export const INBOX_REFRESH_MS = 60_000;

type Reader = () => Promise<InboxAnswer>;

/**
 * The top bar's read: it shows the count and never an error, so a bare GET will do. (The browser's
 * API client, lib/report/client/api.ts, brings the operation table and the catalog with it: about
 * 9 KB gzipped on every page.)
 */
const countReader: Reader = async () => {
  const res = await fetch("/api/notifications/inbox", { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } });
  if (!res.ok) throw new Error(`The dashboard answered ${res.status} ${res.statusText}`.trim());
  return (await res.json()) as InboxAnswer;
};
let reader: Reader = countReader;

/** From now on, read through `read` (the inbox page's, the API client, whose errors it shows). */
export function setInboxReader(read: Reader): void {
  reader = read;
}

export interface InboxState {
  /** The last answer (or what a page seeded), none before the first. */
  data: InboxAnswer | undefined;
  /** The last read's failure, cleared by the next success; the answer before it stays. */
  error: unknown;
}

const EMPTY: InboxState = { data: undefined, error: null };
let state: InboxState = EMPTY;
let inflight: Promise<void> | null = null;
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function set(next: InboxState): void {
  state = next;
  for (const l of listeners) l();
}

/** Reads the inbox now (one read at a time: a caller during a read waits for that one). */
export function refreshInbox(): Promise<void> {
  inflight ??= reader()
    .then(
      (data) => set({ data, error: null }),
      (error: unknown) => set({ data: state.data, error }),
    )
    .finally(() => {
      inflight = null;
    });
  return inflight;
}

/** Changes what is shown at once (the next read confirms it). */
export function updateInbox(change: (current: InboxAnswer | undefined) => InboxAnswer | undefined): void {
  set({ ...state, data: change(state.data) });
}

/** Gives the store the answer the server rendered a page with, unless it holds one already. */
export function seedInbox(answer: InboxAnswer): void {
  if (state.data === undefined) set({ ...state, data: answer });
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Not while the tab is hidden (as react-query's refetchInterval did).
  timer ??= setInterval(() => {
    if (document.visibilityState !== "hidden") void refreshInbox();
  }, INBOX_REFRESH_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The inbox as last read, refreshed every minute while a component shows it. */
export function useInbox(): InboxState {
  return useSyncExternalStore(subscribe, () => state, () => EMPTY);
}
