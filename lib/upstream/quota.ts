/**
 * The quota-aware queue: at most `limit` reporting calls start in any rolling window, shared by every
 * user of this dashboard process. Waiting calls are served fairly: round-robin between owners (a
 * user, or all share-link visitors together), first come first served within one owner, so one
 * analyst with many tabs cannot hold everyone else behind them. A 429 from upstream pauses the whole
 * queue for its Retry-After. Positions and estimated start times are exposed so users see what is
 * happening; a position counts calls, never names whose they are.
 *
 * One owner is different: BACKGROUND_OWNER (the cache warmer, alert rules' and scheduled reports'
 * slots). Its calls are not in the round-robin at all; they start only when no other owner has a call
 * waiting, only while a slot of the window stays free for whoever comes next, so warming caches never
 * makes a person wait (see `backgroundCap` for the one exception, a limit of 1), and only while
 * background calls hold less than BACKGROUND_SHARE of the window (`backgroundShareCap`), however
 * much background work is waiting: the rest of the quota stays for people.
 */

/**
 * Queue owner of work nobody is waiting for (cache warming). The name is reserved: a user id equal
 * to it would be served as background.
 */
export const BACKGROUND_OWNER = "background";

/** The most of any window's calls background work may hold (rounded up, and never the last slot). */
export const BACKGROUND_SHARE = 0.4;

export interface QueueTicket {
  /**
   * 0-based position among waiting calls (in the order they will start), or -1 once started. An
   * interactive call's position never counts background calls (they never start before it); a
   * background call's counts every waiting call, since all of them go first.
   */
  position(): number;
  /**
   * Estimated start (ms since epoch) from the window and the calls ahead; with `later` > 0, of a
   * call this ticket's owner would queue `later` places behind this one (the rest of a job). For a
   * background call it is a lower bound: people who queue later still go first.
   */
  estimatedStart(later?: number): number;
  cancel(): void;
  /**
   * Moves a waiting call to another owner's queue, at its end (as if it arrived now): a person who
   * joins a background job must not wait at background priority. No-op once started or cancelled.
   */
  moveTo(owner: string): void;
}

interface Waiting {
  owner: string;
  run: () => void;
  cancelled: boolean;
}

export class QuotaQueue {
  private readonly sent: number[] = []; // start times within the window, ascending
  /** Per interactive owner, their waiting calls in arrival order. */
  private readonly queues = new Map<string, Waiting[]>();
  /** Interactive owners with waiting calls, in the order they are served next (round-robin). */
  private readonly turn: string[] = [];
  /** BACKGROUND_OWNER's waiting calls, first come first served, outside the round-robin. */
  private readonly background: Waiting[] = [];
  /** Start times of background calls within the window, ascending (a subset of `sent`). */
  private readonly backgroundSent: number[] = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  /** When the pending timer fires, so an earlier need (a person arriving) can bring it forward. */
  private timerAt = 0;

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

  /**
   * A background call starts only while fewer than this many calls are in the window, so that after
   * it starts at least one slot is still free for a person: limit - 1. With a limit of 1 that would
   * be 0 and background work would never run, so there it may take the single slot when the window
   * is empty. The cost is bounded: a person who arrives just after waits at most one window, and
   * never behind a background call that has not started.
   */
  get backgroundCap(): number {
    return Math.max(1, this.limit - 1);
  }

  /** Background calls allowed in any window: BACKGROUND_SHARE of the limit, rounded up, at most backgroundCap. */
  get backgroundShareCap(): number {
    return Math.max(1, Math.min(this.backgroundCap, Math.ceil(this.limit * BACKGROUND_SHARE)));
  }

  private prune(now: number): void {
    while (this.sent.length > 0 && this.sent[0]! <= now - this.windowMs) this.sent.shift();
    while (this.backgroundSent.length > 0 && this.backgroundSent[0]! <= now - this.windowMs) this.backgroundSent.shift();
  }

  /** Pauses every start until `until` (a 429's Retry-After). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.schedule();
  }

  /** Interactive calls waiting (background ones are not counted: nobody waits behind them). */
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
      /** Interactive calls waiting: what a person's report may wait behind. */
      queueLength: this.waitingCount,
      /** Background calls waiting; they start only once queueLength is 0. */
      backgroundQueueLength: this.background.length,
      /** Background calls in the window; at most backgroundShareCap. */
      backgroundInWindow: this.backgroundSent.length,
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
      this.enqueue(w);
      onTicket?.({
        position: () => this.positionOf(w),
        estimatedStart: (later = 0) => {
          const p = this.positionOf(w, later);
          return p < 0 ? Date.now() : this.estimate(p, w.owner === BACKGROUND_OWNER);
        },
        cancel: () => {
          if (!w.cancelled && this.dequeue(w)) {
            w.cancelled = true;
            reject(new CancelledError());
          }
        },
        moveTo: (to: string) => {
          if (w.cancelled || to === w.owner || !this.dequeue(w)) return;
          w.owner = to;
          this.enqueue(w);
          this.drain();
        },
      });
      this.drain();
    });
  }

  private enqueue(w: Waiting): void {
    if (w.owner === BACKGROUND_OWNER) {
      this.background.push(w);
      return;
    }
    let q = this.queues.get(w.owner);
    if (!q) {
      this.queues.set(w.owner, (q = []));
      this.turn.push(w.owner);
    }
    q.push(w);
  }

  /** Takes a waiting call out of its queue; false when it is not waiting (started or gone). */
  private dequeue(w: Waiting): boolean {
    const own = w.owner === BACKGROUND_OWNER ? this.background : this.queues.get(w.owner);
    const i = own ? own.indexOf(w) : -1;
    if (i < 0) return false;
    own!.splice(i, 1);
    if (own!.length === 0 && w.owner !== BACKGROUND_OWNER) this.forget(w.owner);
    return true;
  }

  private forget(owner: string): void {
    this.queues.delete(owner);
    const t = this.turn.indexOf(owner);
    if (t >= 0) this.turn.splice(t, 1);
  }

  /**
   * Where a waiting call (or one `later` places behind it in its owner's queue) starts in the
   * round-robin order: before it go, from each owner, as many calls as rounds pass before its own,
   * plus one more from each owner served earlier in the round. A background call goes after every
   * interactive call waiting and the background calls ahead of it. -1 when it is not waiting.
   */
  private positionOf(w: Waiting, later = 0): number {
    if (w.owner === BACKGROUND_OWNER) {
      const at = this.background.indexOf(w);
      return at < 0 ? -1 : this.waitingCount + at + later;
    }
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

  /**
   * When the call at `position` starts, by playing the queue forward: each call in turn starts at the
   * earliest moment (not before the pause ends, nor before the call ahead of it) when fewer calls than
   * its cap are in the window. Interactive calls have the whole limit; for a background call, the
   * interactive calls waiting go first at the whole limit, then the background ones at backgroundCap.
   */
  private estimate(position: number, background: boolean, now = Date.now()): number {
    this.prune(now);
    const interactiveAhead = background ? Math.min(position, this.waitingCount) : position + 1;
    const starts = [...this.sent];
    let first = 0; // index of the oldest start still in the window at `t`
    let t = Math.max(now, this.pausedUntil);
    for (let k = 0; k <= position; k++) {
      const cap = k < interactiveAhead ? this.limit : this.backgroundCap;
      while (first < starts.length && starts[first]! <= t - this.windowMs) first++;
      if (starts.length - first >= cap) {
        // Enough of them must leave that cap - 1 remain: the one at length - cap is the last to go.
        t = starts[starts.length - cap]! + this.windowMs;
        while (first < starts.length && starts[first]! <= t - this.windowMs) first++;
      }
      starts.push(t);
    }
    return t;
  }

  private drain(): void {
    const now = Date.now();
    this.prune(now);
    if (now >= this.pausedUntil) {
      while (this.turn.length > 0 && this.sent.length < this.limit) {
        const owner = this.turn.shift()!;
        const q = this.queues.get(owner)!;
        const w = q.shift()!;
        if (q.length > 0) this.turn.push(owner);
        else this.queues.delete(owner);
        this.start(w, now);
      }
      // Background only when no person has a call waiting, and never into the window's last slot.
      while (this.turn.length === 0 && this.background.length > 0 && this.sent.length < this.backgroundCap && this.backgroundSent.length < this.backgroundShareCap) {
        this.backgroundSent.push(now);
        this.start(this.background.shift()!, now);
      }
    }
    this.schedule();
  }

  private start(w: Waiting, now: number): void {
    this.sent.push(now);
    w.run();
  }

  /** Sets the timer for the next moment a waiting call may start, earlier than any pending one. */
  private schedule(): void {
    const now = Date.now();
    this.prune(now);
    let at: number;
    if (this.turn.length > 0) {
      at = this.sent.length < this.limit ? this.pausedUntil : Math.max(this.pausedUntil, this.sent[0]! + this.windowMs);
    } else if (this.background.length > 0) {
      const cap = this.backgroundCap;
      const share = this.backgroundShareCap;
      const roomAt = this.sent.length < cap ? 0 : this.sent[this.sent.length - cap]! + this.windowMs;
      const shareAt = this.backgroundSent.length < share ? 0 : this.backgroundSent[this.backgroundSent.length - share]! + this.windowMs;
      at = Math.max(this.pausedUntil, roomAt, shareAt);
    } else {
      return;
    }
    // A timer set for background work may be later than a person who just queued needs.
    if (this.timer) {
      if (this.timerAt <= at) return;
      clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.drain();
      },
      Math.max(0, at - now) + 1,
    );
  }
}

export class CancelledError extends Error {
  constructor() {
    super("cancelled");
  }
}
