/**
 * The quota-aware queue: at most `limit` reporting calls start in any rolling window, shared by every
 * user of this dashboard process. Waiting calls are served fairly: round-robin between owners (a
 * user, or all share-link visitors together), first come first served within one owner, so one
 * analyst with many tabs cannot hold everyone else behind them. A 429 from upstream pauses the whole
 * queue for its Retry-After. Positions and estimated start times are exposed so users see what is
 * happening; a position counts calls, never names whose they are.
 */

export interface QueueTicket {
  /** 0-based position among waiting calls (in the order they will start), or -1 once started. */
  position(): number;
  /**
   * Estimated start (ms since epoch) from the window and the calls ahead; with `later` > 0, of a
   * call this ticket's owner would queue `later` places behind this one (the rest of a job).
   */
  estimatedStart(later?: number): number;
  cancel(): void;
}

interface Waiting {
  owner: string;
  run: () => void;
  cancelled: boolean;
}

export class QuotaQueue {
  private readonly sent: number[] = []; // start times within the window, ascending
  /** Per owner, their waiting calls in arrival order. */
  private readonly queues = new Map<string, Waiting[]>();
  /** Owners with waiting calls, in the order they are served next (round-robin). */
  private readonly turn: string[] = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | null = null;

  /** The window this queue enforces: the configured one plus a margin (below). */
  readonly windowMs: number;

  /**
   * `marginMs` widens our window a little beyond the upstream's, so a call that leaves here just
   * as a slot frees cannot arrive there a moment too early and be refused.
   */
  constructor(
    readonly limit: number,
    /** The configured window (what users are told); the queue keeps a slightly longer one. */
    readonly configuredWindowMs: number,
    marginMs = Math.min(500, configuredWindowMs / 20),
  ) {
    this.windowMs = configuredWindowMs + marginMs;
  }

  private prune(now: number): void {
    while (this.sent.length > 0 && this.sent[0]! <= now - this.windowMs) this.sent.shift();
  }

  /** Pauses every start until `until` (a 429's Retry-After). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.schedule();
  }

  private get waitingCount(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** Calls in the window, queue length and when slots free, for the status endpoint. */
  status(now = Date.now()) {
    this.prune(now);
    return {
      limit: this.limit,
      windowSeconds: Math.round(this.configuredWindowMs / 1000),
      callsInWindow: this.sent.length,
      queueLength: this.waitingCount,
      nextSlotAt: this.sent.length < this.limit ? Math.max(now, this.pausedUntil) : Math.max(this.sent[0]! + this.windowMs, this.pausedUntil),
      /** When the oldest call in the window leaves it (the count drops), or null when none is in it. */
      nextFreeAt: this.sent.length > 0 ? this.sent[0]! + this.windowMs : null,
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : null,
    };
  }

  /** Runs `fn` when a slot is free and it is `owner`'s turn; resolves with its result. */
  run<T>(fn: () => Promise<T>, onTicket?: (t: QueueTicket) => void, owner = ""): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w: Waiting = {
        owner,
        cancelled: false,
        run: () => {
          fn().then(resolve, reject);
        },
      };
      let q = this.queues.get(owner);
      if (!q) {
        this.queues.set(owner, (q = []));
        this.turn.push(owner);
      }
      q.push(w);
      onTicket?.({
        position: () => this.positionOf(w),
        estimatedStart: (later = 0) => {
          const p = this.positionOf(w, later);
          return p < 0 ? Date.now() : this.estimate(p);
        },
        cancel: () => {
          const own = this.queues.get(w.owner);
          const i = own ? own.indexOf(w) : -1;
          if (!w.cancelled && i >= 0) {
            w.cancelled = true;
            own!.splice(i, 1);
            if (own!.length === 0) this.forget(w.owner);
            reject(new CancelledError());
          }
        },
      });
      this.drain();
    });
  }

  private forget(owner: string): void {
    this.queues.delete(owner);
    const t = this.turn.indexOf(owner);
    if (t >= 0) this.turn.splice(t, 1);
  }

  /**
   * Where a waiting call (or one `later` places behind it in its owner's queue) starts in the
   * round-robin order: before it go, from each owner, as many calls as rounds pass before its own,
   * plus one more from each owner served earlier in the round. -1 when it is not waiting.
   */
  private positionOf(w: Waiting, later = 0): number {
    const own = this.queues.get(w.owner);
    const at = own ? own.indexOf(w) : -1;
    if (at < 0) return -1;
    const round = at + later;
    const rank = this.turn.indexOf(w.owner);
    let ahead = round;
    for (const [i, owner] of this.turn.entries()) {
      if (owner === w.owner) continue;
      const n = this.queues.get(owner)?.length ?? 0;
      ahead += Math.min(n, round) + (i < rank && n > round ? 1 : 0);
    }
    return ahead;
  }

  private estimate(position: number, now = Date.now()): number {
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
    while (this.turn.length > 0 && now >= this.pausedUntil && this.sent.length < this.limit) {
      const owner = this.turn.shift()!;
      const q = this.queues.get(owner)!;
      const w = q.shift()!;
      if (q.length > 0) this.turn.push(owner);
      else this.queues.delete(owner);
      this.sent.push(now);
      w.run();
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.turn.length === 0) return;
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
