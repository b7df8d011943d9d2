"use client";
/**
 * An answer from the browser's cache (./cache.ts) by key: fetched when the key is first shown or
 * its answer is older than `staleMs`, joined when the same key is being fetched already, and
 * cancelled when the last screen showing it goes (or moves to another key). What the report pages
 * used of react-query's useQuery, named as it names it.
 */
import { useCallback, useEffect, useId, useRef, useSyncExternalStore } from "react";
import { answers, EMPTY, type EntryState, type Fetcher } from "./cache";

export interface AnswerOptions<T, P> {
  /** The canonical request (`cacheKey`); null: nothing to fetch, nothing shown. */
  key: string | null;
  fetcher: Fetcher<T, P>;
  staleMs: number;
  /** Keeps the last answer on screen (flagged `placeholder`) while the key's own is fetched. */
  keepPrevious?: boolean;
  /** The key's answer as the server's render drew it: stored instead of fetched. */
  initial?: T;
  /** Asks again this long after each answer (false: no more); not while the tab is hidden. */
  refetchMs?: (data: T) => number | false;
}

export interface Answer<T, P> {
  data: T | undefined;
  /** `data` is an earlier key's answer, kept while this key's is fetched. */
  placeholder: boolean;
  error: Error | null;
  fetching: boolean;
  progress: P | null;
  /** Fetches again now, cancelling a fetch of the key that runs. */
  refetch: () => void;
  cancel: () => void;
}

const noop = () => undefined;

/**
 * The last answer each hook drew, by its useId, written after it is drawn: the answer kept on screen
 * while the next key's is fetched. Outside React's state, as react-query's observer keeps it, so a
 * new answer costs its screen one render, not two (its tables are built once). Never written by the
 * server's render (effects do not run there).
 */
const lastShown = new Map<string, unknown>();

/** Never asked for, so a screen's first look (the server's render too) will fetch it. */
const untouched = (s: EntryState<unknown, unknown>) => s.data === undefined && s.error === null && !s.fetching && s.progress === null;

export function useAnswer<T, P = never>({ key, fetcher, staleMs, keepPrevious = false, initial, refetchMs }: AnswerOptions<T, P>): Answer<T, P> {
  const subscribe = useCallback((onChange: () => void) => (key === null ? noop : answers.subscribe(key, onChange)), [key]);
  const state = useSyncExternalStore(
    subscribe,
    () => (key === null ? EMPTY : answers.peek<T, P>(key)),
    () => EMPTY,
  );
  const fetchRef = useRef(fetcher);
  useEffect(() => {
    fetchRef.current = fetcher;
  });

  useEffect(() => {
    if (key === null) return;
    const s = answers.peek<T, P>(key);
    if (s.fetching) return;
    if (s.data === undefined && initial !== undefined) answers.seed(key, initial);
    else if (s.data === undefined || Date.now() - s.updatedAt > staleMs) void answers.fetch<T, P>(key, (signal, progress) => fetchRef.current(signal, progress));
  }, [key, initial, staleMs]);

  const data = key === null ? undefined : (state.data ?? initial);
  useEffect(() => {
    if (key === null || data === undefined || state.fetching || !refetchMs) return;
    const ms = refetchMs(data);
    if (ms === false) return;
    const timer = setInterval(() => {
      if (!document.hidden) void answers.fetch<T, P>(key, (signal, progress) => fetchRef.current(signal, progress));
    }, ms);
    return () => clearInterval(timer);
  }, [key, data, state.fetching, refetchMs]);

  // The last answer shown, kept across keys.
  const slot = useId();
  useEffect(() => {
    if (data !== undefined) lastShown.set(slot, data);
  }, [slot, data]);
  useEffect(() => () => void lastShown.delete(slot), [slot]);
  const shown = data ?? (keepPrevious && key !== null ? (lastShown.get(slot) as T | undefined) : undefined);

  const refetch = useCallback(() => {
    if (key === null) return;
    answers.clearProgress(key);
    void answers.fetch<T, P>(key, (signal, progress) => fetchRef.current(signal, progress), { restart: true });
  }, [key]);
  const cancel = useCallback(() => {
    if (key !== null) answers.cancel(key);
  }, [key]);

  return {
    data: shown,
    placeholder: data === undefined && shown !== undefined,
    error: key === null ? null : state.error,
    // Fetching already on the first look at a key never asked for, as the effect above will.
    fetching: key !== null && (state.fetching || (initial === undefined && untouched(state))),
    progress: key === null ? null : state.progress,
    refetch,
    cancel,
  };
}
