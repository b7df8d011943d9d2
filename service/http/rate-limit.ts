/**
 * True sliding-window rate limiting: each key keeps the times of its last `limit` admitted requests
 * in a ring, so at no `windowMs` interval does a key get more than `limit`.
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the oldest admission in the window leaves it, freeing a slot. */
  resetEpochSeconds: number;
  /** Whole seconds to wait when refused (≥ 1). */
  retryAfterSeconds: number;
}

class Window {
  readonly times: Float64Array;
  head = 0; // index of the oldest entry
  count = 0;
  constructor(limit: number) {
    this.times = new Float64Array(limit);
  }
}

export class SlidingWindowLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
  ) {}

  hit(key: string, now = Date.now()): RateDecision {
    let w = this.windows.get(key);
    if (!w) {
      w = new Window(this.limit);
      this.windows.set(key, w);
    }
    // Forget admissions older than the window.
    while (w.count > 0 && (w.times[w.head] ?? 0) <= now - this.windowMs) {
      w.head = (w.head + 1) % this.limit;
      w.count--;
    }
    if (w.count >= this.limit) {
      const frees = (w.times[w.head] ?? now) + this.windowMs;
      return {
        allowed: false,
        limit: this.limit,
        remaining: 0,
        resetEpochSeconds: Math.ceil(frees / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)),
      };
    }
    w.times[(w.head + w.count) % this.limit] = now;
    w.count++;
    const oldest = w.times[w.head] ?? now;
    return {
      allowed: true,
      limit: this.limit,
      remaining: this.limit - w.count,
      resetEpochSeconds: Math.ceil((oldest + this.windowMs) / 1000),
      retryAfterSeconds: 0,
    };
  }

  /** Drops keys whose window is empty, so memory follows active clients only. */
  sweep(now = Date.now()): void {
    for (const [key, w] of this.windows) {
      const newest = w.count > 0 ? (w.times[(w.head + w.count - 1) % this.limit] ?? 0) : 0;
      if (newest <= now - this.windowMs) this.windows.delete(key);
    }
  }
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const h: Record<string, string> = {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.resetEpochSeconds),
  };
  if (!d.allowed) h["Retry-After"] = String(d.retryAfterSeconds);
  return h;
}
