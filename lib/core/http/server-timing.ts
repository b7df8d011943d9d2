/**
 * Where a request's time goes, as a standard `Server-Timing` response header
 * (`session;dur=0.41, parse;dur=0.05, …`), read by bench:proxy and visible in the browser's network
 * panel. Only fixed metric names and durations are ever written: no description, no value from the
 * request, so the header can carry nothing secret.
 *
 * A route opts in (`apiRoute({ timing: true })`); code anywhere below it wraps a step in
 * `measure("name", fn)`, which finds the request's timing through AsyncLocalStorage and is a plain
 * call when no request is being timed (tests, background work).
 */
import { AsyncLocalStorage } from "node:async_hooks";

const NAME = /^[a-z][a-z0-9-]{0,31}$/;

export class ServerTiming {
  private readonly durations = new Map<string, number>();
  private readonly started = performance.now();

  /** Adds `ms` to the metric `name` (a step measured twice is summed). */
  add(name: string, ms: number): void {
    if (!NAME.test(name)) throw new Error(`bad Server-Timing metric name: ${name}`);
    this.durations.set(name, (this.durations.get(name) ?? 0) + ms);
  }

  /** The header's value, the metrics in the order first measured, then `total` since construction. */
  header(): string {
    const parts = [...this.durations].map(([name, ms]) => `${name};dur=${ms.toFixed(3)}`);
    parts.push(`total;dur=${(performance.now() - this.started).toFixed(3)}`);
    return parts.join(", ");
  }
}

const current = new AsyncLocalStorage<ServerTiming>();

/** Runs `fn` with `timing` as the request's timing, for `measure` below it. */
export function withTiming<T>(timing: ServerTiming, fn: () => T): T {
  return current.run(timing, fn);
}

/** Times `fn` under `name` on the current request's timing, if any; returns what `fn` returns. */
export function measure<T>(name: string, fn: () => T): T {
  const timing = current.getStore();
  if (!timing) return fn();
  const t = performance.now();
  let out: T;
  try {
    out = fn();
  } catch (e) {
    timing.add(name, performance.now() - t);
    throw e;
  }
  if (out instanceof Promise) {
    return out.finally(() => timing.add(name, performance.now() - t)) as T;
  }
  timing.add(name, performance.now() - t);
  return out;
}

/** Parses a `Server-Timing` value into metric → ms (what bench:proxy and the tests read). */
export function parseServerTiming(value: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (value ?? "").split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const dur = params.map((p) => p.trim()).find((p) => p.startsWith("dur="));
    out[name] = dur ? Number(dur.slice(4)) : 0;
  }
  return out;
}
