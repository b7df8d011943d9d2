/**
 * The browser's cache of answers (reports, dashboards, the quota), in place of react-query (≈ 10 KB
 * gzipped on every report page) for the little those pages used of it. An entry is keyed by its
 * canonical request (`cacheKey`), so two screens asking the same thing share one entry and one fetch;
 * a fetch can report progress beside its entry; it is cancelled by `cancel` or when its last
 * subscriber leaves, and the entry then reverts to what it held before; the cache keeps at most
 * `maxEntries`, dropping the least recently used that nobody watches or fetches.
 */

export interface EntryState<T, P> {
  data: T | undefined;
  error: Error | null;
  fetching: boolean;
  /** What the running (or last) fetch reported; null until it reports, and after `clearProgress`. */
  progress: P | null;
  /** When `data` arrived (ms since epoch); 0 while there is none. */
  updatedAt: number;
}

/** Fetches an entry's answer: stop at `signal`, report progress with `progress`. */
export type Fetcher<T, P> = (signal: AbortSignal, progress: (p: P) => void) => Promise<T>;

interface Entry {
  state: EntryState<unknown, unknown>;
  listeners: Set<() => void>;
  controller: AbortController | null;
  run: Promise<void> | null;
}

export const EMPTY: EntryState<never, never> = Object.freeze({ data: undefined, error: null, fetching: false, progress: null, updatedAt: 0 });

/** The same key for the same request, whatever the order of its objects' properties. */
export function cacheKey(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** Why a fetch is stopped when nobody watches its entry any more (an AbortError, as fetch expects). */
const abandoned = () => new DOMException("Nobody shows this answer any more.", "AbortError");

export class AnswerCache {
  readonly #entries = new Map<string, Entry>();

  constructor(readonly maxEntries = 40) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The entry's state (EMPTY when there is none); the same object until the entry changes. */
  peek<T, P = never>(key: string): EntryState<T, P> {
    return (this.#entries.get(key)?.state ?? EMPTY) as EntryState<T, P>;
  }

  /** Calls `listener` on every change of the entry; leaving as its last watcher cancels its fetch. */
  subscribe(key: string, listener: () => void): () => void {
    const entry = this.#entry(key);
    entry.listeners.add(listener);
    return () => {
      entry.listeners.delete(listener);
      if (entry.listeners.size === 0) {
        entry.controller?.abort(abandoned());
        this.#trim();
      }
    };
  }

  /**
   * Fetches the entry's answer, or joins the fetch already running for it (`restart`: cancels that
   * one and starts again). Settles when the fetch ends, however it ends; never rejects.
   */
  fetch<T, P = never>(key: string, fetcher: Fetcher<T, P>, { restart = false }: { restart?: boolean } = {}): Promise<void> {
    const entry = this.#entry(key);
    if (entry.run && !restart) return entry.run;
    entry.controller?.abort();
    const controller = new AbortController();
    const before = entry.state;
    entry.controller = controller;
    this.#set(entry, { fetching: true });
    const mine = () => entry.controller === controller;
    const run = fetcher(controller.signal, (p) => {
      if (mine()) this.#set(entry, { progress: p });
    }).then(
      (data) => {
        if (mine()) this.#set(entry, { data, error: null, updatedAt: Date.now() });
      },
      (e: unknown) => {
        if (!mine()) return;
        // Cancelled: back to what it held before, keeping the progress that says so; abandoned (its
        // screen went): as if never asked, so a screen that shows it again starts it afresh.
        if (controller.signal.aborted) {
          const left = controller.signal.reason instanceof DOMException && controller.signal.reason.message === abandoned().message;
          this.#set(entry, { data: before.data, error: before.error, updatedAt: before.updatedAt, ...(left ? { progress: null, ...(before.data === undefined ? { error: null } : {}) } : {}) });
        }
        else this.#set(entry, { error: asError(e) });
      },
    ).finally(() => {
      if (!mine()) return;
      entry.controller = null;
      entry.run = null;
      this.#set(entry, { fetching: false });
      this.#trim();
    });
    entry.run = run;
    return run;
  }

  /** Stops the entry's fetch, if one runs; the entry reverts to what it held before it. */
  cancel(key: string): void {
    this.#entries.get(key)?.controller?.abort();
  }

  /**
   * Stores the answer the server drew into the page, for the screen that already shows it. Its
   * watchers are not told: that screen would only render again to show the same answer, and a render
   * while a lazy part of it is still hydrating makes React drop the server's HTML there and draw it
   * again (a dashboard's tiles flashed "Loading the tiles…"). Later changes are told as usual.
   */
  seed<T>(key: string, data: T): void {
    const entry = this.#entry(key);
    entry.state = { ...entry.state, data, error: null, updatedAt: Date.now() };
    this.#trim();
  }

  clearProgress(key: string): void {
    const entry = this.#entries.get(key);
    if (entry && entry.state.progress !== null) this.#set(entry, { progress: null });
  }

  #entry(key: string): Entry {
    let entry = this.#entries.get(key);
    if (entry) {
      // Most recently used last: eviction takes from the front.
      this.#entries.delete(key);
    } else {
      entry = { state: EMPTY, listeners: new Set(), controller: null, run: null };
    }
    this.#entries.set(key, entry);
    return entry;
  }

  #set(entry: Entry, patch: Partial<EntryState<unknown, unknown>>): void {
    entry.state = { ...entry.state, ...patch };
    for (const l of [...entry.listeners]) l();
  }

  #trim(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.maxEntries) return;
      if (entry.listeners.size === 0 && !entry.run) this.#entries.delete(key);
    }
  }
}

/** The browser's one cache. The server's render never fetches into it (fetches start in effects). */
export const answers = new AnswerCache();
