/**
 * The quota-aware queue: at most `limit` reporting calls start in any rolling window, shared by every
 * user of this dashboard process. Tasks wait in FIFO order; a 429 from upstream pauses the whole queue
 * for its Retry-After. Positions and estimated start times are exposed so users see what is happening.
 */

export interface QueueTicket {
  /** 0-based position among waiting tasks, or -1 once started. */
  position(): number;
  /** Estimated start (ms since epoch) from the window and the queue ahead. */
  estimatedStart(): number;
  cancel(): void;
}

interface Waiting {
  run: () => void;
  cancelled: boolean;
}

export class QuotaQueue {
  private readonly sent: number[] = []; // start times within the window, ascending
  private readonly waiting: Waiting[] = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | null = null;

  readonly windowMs: number;

  /**
   * `marginMs` widens our window a little beyond the upstream's, so a call that leaves here just
   * as a slot frees cannot arrive there a moment too early and be refused.
   */
  constructor(
    readonly limit: number,
    windowMs: number,
    marginMs = Math.min(500, windowMs / 20),
  ) {
    this.windowMs = windowMs + marginMs;
  }

  private prune(now: number): void {
    while (this.sent.length > 0 && this.sent[0]! <= now - this.windowMs) this.sent.shift();
  }

  /** Pauses every start until `until` (a 429's Retry-After). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.schedule();
  }

  /** Calls in the window, queue length and when the next slot frees, for the status endpoint. */
  status(now = Date.now()) {
    this.prune(now);
    return {
      limit: this.limit,
      windowSeconds: Math.round(this.windowMs / 1000),
      callsInWindow: this.sent.length,
      queueLength: this.waiting.filter((w) => !w.cancelled).length,
      nextSlotAt: this.sent.length < this.limit ? Math.max(now, this.pausedUntil) : Math.max(this.sent[0]! + this.windowMs, this.pausedUntil),
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : null,
    };
  }

  /** Runs `fn` when a slot is free; resolves with its result. */
  run<T>(fn: () => Promise<T>, onTicket?: (t: QueueTicket) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w: Waiting = {
        cancelled: false,
        run: () => {
          fn().then(resolve, reject);
        },
      };
      this.waiting.push(w);
      onTicket?.({
        position: () => this.waiting.filter((x) => !x.cancelled).indexOf(w),
        estimatedStart: () => this.estimate(this.waiting.filter((x) => !x.cancelled).indexOf(w)),
        cancel: () => {
          if (!w.cancelled && this.waiting.includes(w)) {
            w.cancelled = true;
            this.waiting.splice(this.waiting.indexOf(w), 1);
            reject(new CancelledError());
          }
        },
      });
      this.drain();
    });
  }

  private estimate(position: number, now = Date.now()): number {
    if (position < 0) return now;
    this.prune(now);
    const start = Math.max(now, this.pausedUntil);
    const free = this.limit - this.sent.length;
    if (position < free) return start;
    const idx = position - free;
    const base = this.sent[idx % this.limit] ?? now;
    return Math.max(start, base + this.windowMs * (Math.floor(idx / this.limit) + 1));
  }

  private drain(): void {
    const now = Date.now();
    this.prune(now);
    while (this.waiting.length > 0 && now >= this.pausedUntil && this.sent.length < this.limit) {
      const w = this.waiting.shift()!;
      if (w.cancelled) continue;
      this.sent.push(now);
      w.run();
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.waiting.length === 0) return;
    const now = Date.now();
    this.prune(now);
    const at = this.sent.length < this.limit ? this.pausedUntil : Math.max(this.pausedUntil, this.sent[0]! + this.windowMs);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drain();
    }, Math.max(0, at - now) + 1);
  }
}

export class CancelledError extends Error {
  constructor() {
    super("cancelled");
  }
}
