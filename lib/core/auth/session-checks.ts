/**
 * The session check's store read (`revalidateSession`), kept between requests where that is exact.
 * The check's answer for a session (its user, their role, or that the session is over) depends only
 * on the `users` and `revoked_sessions` rows and on the time (the 12 hours are checked before this,
 * by the caller). Both tables notify 'session_change' on every statement that changes them (migration
 * 9), so while no notification has come, the answer read before is still the store's answer.
 *
 * That holds only where every notification arrives before the writer learns its write is done:
 * PGlite, which one process owns and which delivers its own notifications synchronously
 * (`Store.listenInProcess`). So a disable, a role or password change, or a sign-out made through any
 * route takes effect on the next request exactly as when the store was read every time. With
 * PostgreSQL several instances write, and a notification reaches the others later than a request
 * may, so the store is read on every check there, as before.
 *
 * Only answers that found a live session are kept (a session that is over answers from the store
 * every time, as before), at most `maxEntries`, least recently used out first; every notification
 * drops them all.
 */
import type { Store } from "@/lib/core/store/sql";
import type { SessionAccount } from "./authenticate";

export const SESSION_CHANGE_CHANNEL = "session_change";

/** The store read this keeps: the user of a session, or null when the session is over. */
export type Revalidate = (store: Store, userId: string, signedInAt: number, sessionId: string) => Promise<SessionAccount | null>;

interface PerStore {
  /** Resolves true once this process hears the store's notifications; false when it cannot. */
  listening: Promise<boolean>;
  /** Notifications heard so far: an answer is kept only if none came while it was read. */
  revision: number;
  entries: Map<string, SessionAccount>;
}

export class SessionChecks {
  private readonly stores = new WeakMap<Store, PerStore>();

  constructor(
    private readonly revalidate: Revalidate,
    private readonly maxEntries: number,
  ) {}

  /** The session's user as the store has them now, or null when the session is over. */
  async check(store: Store, userId: string, signedInAt: number, sessionId: string): Promise<SessionAccount | null> {
    const state = this.follow(store);
    if (!(await state.listening)) return this.revalidate(store, userId, signedInAt, sessionId);
    // No character of a uuid, a session id or a number is a newline: distinct sessions, distinct keys.
    const key = `${userId}\n${sessionId}\n${signedInAt}`;
    const kept = state.entries.get(key);
    if (kept) {
      state.entries.delete(key);
      state.entries.set(key, kept); // most recently used last
      return { ...kept };
    }
    // Read before the store is: a write that completes after this line bumps it, and its answer is not kept.
    const revision = state.revision;
    const user = await this.revalidate(store, userId, signedInAt, sessionId);
    if (user && revision === state.revision) {
      state.entries.set(key, { ...user });
      while (state.entries.size > this.maxEntries) state.entries.delete(state.entries.keys().next().value!);
    }
    return user;
  }

  /** How many answers are kept for `store` (tests). */
  size(store: Store): number {
    return this.stores.get(store)?.entries.size ?? 0;
  }

  private follow(store: Store): PerStore {
    const known = this.stores.get(store);
    if (known) return known;
    const created: PerStore = { listening: Promise.resolve(false), revision: 0, entries: new Map() };
    const listen = store.listenInProcess;
    if (listen) {
      created.listening = listen
        .call(store, SESSION_CHANGE_CHANNEL, () => {
          created.revision++;
          created.entries.clear();
        })
        .then(
          () => true,
          (e: unknown) => {
            // Without notifications nothing may be kept: every check reads the store, as before.
            console.error(JSON.stringify({ level: "error", msg: "session checks: cannot listen to the store", error: e instanceof Error ? e.message : String(e) }));
            return false;
          },
        );
    }
    this.stores.set(store, created);
    return created;
  }
}
