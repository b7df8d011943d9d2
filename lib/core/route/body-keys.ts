/**
 * Request body text → the cache key (`queryKey`) of the report query it validates to, for the
 * report routes' exact hits. The browser asks the same report in the same bytes again and
 * again (a screen coming back, a dashboard's tiles, a poll); validating the body (JSON.parse, the
 * contract's zod schema, the canonical query) was a fifth of what such a hit cost the handler, and
 * its answer is a pure function of the operation and the text: no user, time or configuration enters
 * `gateway.parse` (lib/contract/requests.ts; the date checks there are relative to the body's own
 * dates). So a key is kept per text, and an exact hit looks its bytes up by it.
 *
 * What is kept is only ever a string computed from a body that passed validation: a body that fails
 * is never kept and fails again each time. Who may ask is decided before (the route's role check),
 * and the answer's bytes are the same for every user allowed to ask, as they were. Bounded: at most
 * `maxEntries` keys, least recently used out first, and no text longer than `maxTextLength` (a report
 * body is ≈ 150 characters; a longer one is validated every time).
 */
import type { Operation } from "@/lib/contract/catalog";

export interface BodyKeysOptions {
  maxEntries: number;
  maxTextLength: number;
}

/** 500 bodies of at most 2,048 characters: at most ≈ 4 MB with their keys, usually a few hundred KB. */
export const BODY_KEYS: BodyKeysOptions = { maxEntries: 500, maxTextLength: 2048 };

export class BodyKeys {
  private readonly keys = new Map<string, string>();

  constructor(private readonly options: BodyKeysOptions = BODY_KEYS) {}

  get size(): number {
    return this.keys.size;
  }

  /** The key kept for `text` asked of `op`, or undefined; a use for the least-recently-used order. */
  get(op: Operation, text: string): string | undefined {
    if (text.length > this.options.maxTextLength) return undefined;
    const id = `${op}\n${text}`;
    const key = this.keys.get(id);
    if (key !== undefined) {
      this.keys.delete(id);
      this.keys.set(id, key); // most recently used last
    }
    return key;
  }

  /** Keeps `key` for `text` asked of `op`: call only with the key of the query `text` validated to. */
  set(op: Operation, text: string, key: string): void {
    if (text.length > this.options.maxTextLength) return;
    const id = `${op}\n${text}`;
    this.keys.delete(id);
    this.keys.set(id, key);
    while (this.keys.size > this.options.maxEntries) this.keys.delete(this.keys.keys().next().value!);
  }
}
