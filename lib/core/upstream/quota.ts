/**
 * The quota-aware queue: at most `limit` reporting calls start in any rolling window, shared by every
 * user of this dashboard process. Waiting calls are served first come, first served: each call takes
 * a place at the end of the line when it arrives, and nothing that arrives later is put ahead of it,
 * so a call's position (the calls ahead of it) only ever falls. A report of several calls keeps its
 * place for its later calls (`hold`): the calls it has said it will make are counted where it stands
 * while one of them is under way, and its next call takes that place again instead of going to the
 * end. Nobody is kept out for long by a flood: the job registry caps how many reports one owner (a
 * user, or all share-link visitors together) may have waiting (./jobs.ts). A 429 from upstream pauses
 * the whole queue for its Retry-After. Positions and estimated start times are exposed so users see
 * what is happening; a position counts calls, never names whose they are.
 *
 * One owner is different: BACKGROUND_OWNER (the cache warmer, alert rules' and scheduled reports'
 * slots). Its calls wait in a line of their own behind every person's: they start only when no person
 * has a call waiting or held, only while a slot of the window stays free for whoever comes next, so
 * warming caches never makes a person wait (see `backgroundCap` for the one exception, a limit of 1),
 * and only while background calls hold less than BACKGROUND_SHARE of the window
 * (`backgroundShareCap`), however much background work is waiting: the rest of the quota stays for
 * people. A background call's position is therefore only a lower bound (a person who queues later
 * still goes first); a person who joins a background job takes it over into people's line, at its end.
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
   * 0-based position among the calls that start before it (waiting ones, and those a report holding
   * an earlier place has said it will make), or -1 once started. It never rises: later arrivals go
   * behind it. An interactive call's position never counts background calls (they never start
   * before it); a background call's counts every person's call, since all of them go first.
   */
  position(): number;
  /**
   * Estimated start (ms since epoch) from the window and the calls ahead; with `later` > 0, of a
   * call this ticket's report would make `later` calls after this one (the rest of a job, counted
   * where the job holds its place). For a background call it is a lower bound: people who queue
   * later still go first.
   */
  estimatedStart(later?: number): number;
  cancel(): void;
  /**
   * Moves a waiting call to another owner's line, at its end (as if it arrived now): a person who
   * joins a background job must not wait at background priority. No-op once started or cancelled.
   */
  moveTo(owner: string): void;
  /**
   * Keeps this call's place for `later` more calls of the same report: they are counted there, by
   * everyone behind, and each takes the place back when it is queued (`QueueTicket.join`).
   */
  hold(later: number): QueueHold;
  /** Takes the place `hold` keeps, when it still keeps one for a call; otherwise stays at the end. */
  join(hold: QueueHold): void;
}

/** A place in line kept for a report's later calls. */
export interface QueueHold {
  /** Calls still kept (not yet queued). */
  readonly count: number;
  /**
   * Keeps `later` calls from now on. It may always shrink; it grows only while nobody waits behind
   * the place (nobody's position may rise), and otherwise stays as it is: the calls past it queue at
   * the end when they come. Returns the count kept.
   */
  keep(later: number): number;
  /** Moves the place to another owner's line, at its end (a person taking over a background job). */
  moveTo(owner: string): void;
  /** Estimated start (ms since epoch) of the last call kept (of the waiting one, when none is kept). */
  estimatedLast(): number;
  /**
   * Position of the last call kept: the calls that start before the report's last one. It only
   * falls, unless the report keeps more calls (which it may only while nobody is behind it).
   */
  lastPosition(): number;
  /** Calls that start before the place's first call (of a place `reserve`d before any call queued). */
  position(): number;
  /** Estimated start (ms since epoch) of the place's first call. */
  estimatedStart(): number;
  /** No further call: the place is let go, and everyone behind moves up. */
  release(): void;
}

interface Waiting {
  owner: string;
  /** Starts the call; settles when it has. */
  run: () => Promise<unknown>;
  cancelled: boolean;
  /** Its place in line: arrival order, or the place of the report's hold it joined. */
  place: number;
}

interface Hold {
  owner: string;
  place: number;
  count: number;
  released: boolean;
}

const isBackground = (owner: string) => owner === BACKGROUND_OWNER;

export class QuotaQueue {
  private readonly sent: number[] = []; // start times within the window, ascending
  /** People's waiting calls, by place. */
  private readonly line: Waiting[] = [];
  /** BACKGROUND_OWNER's waiting calls, by place, behind every person's. */
  private readonly background: Waiting[] = [];
  /** Places kept for reports' later calls, people's and background's. */
  private readonly holds = new Set<Hold>();
  private readonly holdState = new WeakMap<QueueHold, Hold>();
  /** The next place handed out: arrival order. */
  private nextPlace = 0;
  /** Start times of background calls within the window, ascending (a subset of `sent`). */
  private readonly backgroundSent: number[] = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  /** When the pending timer fires, so an earlier need (a person arriving) can bring it forward. */
  private timerAt = 0;

  /** The window this queue enforces: the configured one plus a margin (below). */
  readonly windowMs: number;
  /**
   * How long a call takes from its start here to its answer (a moving average; 0 before the first).
   * The upstream counts a call when it arrives, somewhere in between (after a token, a slow
   * connection, a shared window's wait): a window counted from the start could let the next call
   * arrive too early and be refused, so an answered call is kept in the window from its answer, and
   * estimates count a call's slot from when it will have answered.
   */
  private latencyMs = 0;
  /** How long a call takes, from its start here to its answer (a moving average; 0 before the first answer). */
  get callMs(): number {
    return this.latencyMs;
  }

  /** Start times (in `sent`) of calls not answered yet, with how many started at each. */
  private readonly unanswered = new Map<number, number>();

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

  /**
   * Forgets calls that left the window: a window after their answer (`answered`), or, while not
   * answered, after their start.
   */
  private prune(now: number): void {
    while (this.sent.length > 0 && this.sent[0]! <= now - this.windowMs) this.sent.shift();
    while (this.backgroundSent.length > 0 && this.backgroundSent[0]! <= now - this.windowMs) this.backgroundSent.shift();
  }

  /** Pauses every start until `until` (a 429's Retry-After). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.schedule();
  }

  /** Calls kept by holds in one line (people's or background's), before `place` when given. */
  private held(background: boolean, before = Infinity): number {
    let n = 0;
    for (const h of this.holds) if (isBackground(h.owner) === background && h.place < before) n += h.count;
    return n;
  }

  /** People's calls waiting or held: what a person's report may wait behind (background ones never go first). */
  private get peopleAhead(): number {
    return this.line.length + this.held(false);
  }

  /** Calls in the window, queue length and when slots free, for the status endpoint. */
  status(now = Date.now()) {
    this.prune(now);
    return {
      limit: this.limit,
      windowSeconds: Math.round(this.configuredWindowMs / 1000),
      callsInWindow: this.sent.length,
      /** People's calls waiting, and those their reports hold a place for: what a person's report may wait behind. */
      queueLength: this.peopleAhead,
      /** Background calls waiting or held; they start only once queueLength is 0. */
      backgroundQueueLength: this.background.length + this.held(true),
      /** Background calls in the window; at most backgroundShareCap. */
      backgroundInWindow: this.backgroundSent.length,
      nextSlotAt: this.sent.length < this.limit ? Math.max(now, this.pausedUntil) : Math.max(this.sent[0]! + this.windowMs, this.pausedUntil),
      /** When the oldest call in the window leaves it (the count drops), or null when none is in it. */
      nextFreeAt: this.sent.length > 0 ? this.sent[0]! + this.windowMs : null,
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : null,
    };
  }

  /** Runs `fn` when a slot is free and its turn has come; resolves with its result. */
  run<T>(fn: () => Promise<T>, onTicket?: (t: QueueTicket) => void, owner = ""): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w: Waiting = {
        owner,
        cancelled: false,
        place: this.nextPlace++,
        run: () => {
          const p = fn();
          p.then(resolve, reject);
          return p;
        },
      };
      this.enqueue(w);
      onTicket?.({
        position: () => this.positionOf(w),
        estimatedStart: (later = 0) => {
          const p = this.positionOf(w);
          return p < 0 ? Date.now() : this.estimate(p + later, isBackground(w.owner));
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
          w.place = this.nextPlace++;
          this.enqueue(w);
          this.drain();
        },
        hold: (later: number) => this.hold(w, later),
        join: (hold: QueueHold) => {
          const s = this.holdState.get(hold);
          if (!s || s.released || s.count <= 0 || isBackground(s.owner) !== isBackground(w.owner) || !this.dequeue(w)) return;
          s.count--;
          w.place = s.place;
          this.enqueue(w);
          this.drain();
        },
      });
      this.drain();
    });
  }

  /**
   * A place in line, at its end, kept for `calls` calls of a report that has not queued any yet (it
   * is still reading kept days, or asking other instances first): its first call takes it
   * (`QueueTicket.join`), so the place it was shown is never lost to those who come after it. A
   * report that makes no call lets it go (`release`).
   */
  reserve(owner: string, calls: number): QueueHold {
    const s: Hold = { owner, place: this.nextPlace++, count: Math.max(0, Math.floor(calls)), released: false };
    if (s.count > 0) this.holds.add(s);
    return this.holdOf(s);
  }

  private hold(w: Waiting, later: number): QueueHold {
    const s: Hold = { owner: w.owner, place: w.place, count: Math.max(0, Math.floor(later)), released: false };
    this.holds.add(s);
    return this.holdOf(s);
  }

  private holdOf(s: Hold): QueueHold {
    const lastPosition = () => {
      const ahead = this.aheadOf(s.place, isBackground(s.owner));
      const own = [...this.line, ...this.background].some((x) => x.place === s.place) ? 1 : 0;
      return Math.max(0, ahead + own + s.count - 1);
    };
    const hold: QueueHold = {
      get count() {
        return s.count;
      },
      keep: (n: number) => {
        if (s.released) return 0;
        const want = Math.max(0, Math.floor(n));
        if (want <= s.count || !this.anyBehind(s)) s.count = want;
        if (s.count === 0) this.holds.delete(s);
        else this.holds.add(s);
        this.drain();
        return s.count;
      },
      moveTo: (to: string) => {
        if (s.released || to === s.owner) return;
        const waiting = [...this.line, ...this.background].find((x) => x.place === s.place && x.owner === s.owner);
        s.owner = to;
        s.place = this.nextPlace++;
        if (waiting && this.dequeue(waiting)) {
          waiting.owner = to;
          waiting.place = s.place;
          this.enqueue(waiting);
        }
        this.drain();
      },
      estimatedLast: () => {
        // A report makes its calls one after another: each starts no sooner than its slot in the
        // window, nor than the one before it has answered, however free the window is.
        const bg = isBackground(s.owner);
        const last = lastPosition();
        let t = 0;
        for (let k = this.aheadOf(s.place, bg); k <= last; k++) t = Math.max(this.estimate(k, bg), t === 0 ? 0 : t + this.latencyMs);
        return t === 0 ? this.estimate(last, bg) : t;
      },
      lastPosition: () => lastPosition(),
      position: () => this.aheadOf(s.place, isBackground(s.owner)),
      estimatedStart: () => this.estimate(this.aheadOf(s.place, isBackground(s.owner)), isBackground(s.owner)),
      release: () => {
        s.released = true;
        s.count = 0;
        this.holds.delete(s);
        this.drain();
      },
    };
    this.holdState.set(hold, s);
    return hold;
  }

  /** Whether any call waits, or is held, behind the hold's place in its own line. */
  private anyBehind(s: Hold): boolean {
    // Background calls are behind every person's anyway: a person's hold growing moves them back,
    // which their lower-bound positions allow.
    const bg = isBackground(s.owner);
    const line = bg ? this.background : this.line;
    if (line.some((x) => x.place > s.place)) return true;
    for (const h of this.holds) if (h !== s && isBackground(h.owner) === bg && h.place > s.place && h.count > 0) return true;
    return false;
  }

  private enqueue(w: Waiting): void {
    const line = isBackground(w.owner) ? this.background : this.line;
    let i = line.length;
    while (i > 0 && line[i - 1]!.place > w.place) i--;
    line.splice(i, 0, w);
  }

  /** Takes a waiting call out of its line; false when it is not waiting (started or gone). */
  private dequeue(w: Waiting): boolean {
    const line = isBackground(w.owner) ? this.background : this.line;
    const i = line.indexOf(w);
    if (i < 0) return false;
    line.splice(i, 1);
    return true;
  }

  /** Calls, waiting or held, that go before `place` in its line; a background place has every person's ahead too. */
  private aheadOf(place: number, background: boolean): number {
    const line = background ? this.background : this.line;
    let n = 0;
    for (const x of line) if (x.place < place) n++;
    n += this.held(background, place);
    return background ? this.peopleAhead + n : n;
  }

  /** Where a waiting call starts among the calls ahead of it; -1 when it is not waiting. */
  private positionOf(w: Waiting): number {
    const line = isBackground(w.owner) ? this.background : this.line;
    if (!line.includes(w)) return -1;
    return this.aheadOf(w.place, isBackground(w.owner));
  }

  /**
   * When the call at `position` starts, by playing the queue forward: each call in turn starts at the
   * earliest moment (not before the pause ends, nor before the call ahead of it) when fewer calls than
   * its cap are in the window. Interactive calls have the whole limit; for a background call, the
   * people's calls go first at the whole limit, then the background ones at backgroundCap.
   */
  private estimate(position: number, background: boolean, now = Date.now()): number {
    this.prune(now);
    const interactiveAhead = background ? Math.min(position, this.peopleAhead) : position + 1;
    // A call not answered yet will be kept in the window from its answer: as long after its start
    // as calls take, and not before now (none measured yet: from its start).
    const starts = this.sent.map((t) => (this.unanswered.has(t) && this.latencyMs > 0 ? Math.max(now, t + this.latencyMs) : t)).sort((a, b) => a - b);
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
      // Kept in the window from its answer, as the queue will keep it.
      const kept = t + this.latencyMs;
      let i = starts.length;
      while (i > first && starts[i - 1]! > kept) i--;
      starts.splice(i, 0, kept);
    }
    return t;
  }

  private drain(): void {
    const now = Date.now();
    this.prune(now);
    if (now >= this.pausedUntil) {
      // In order of place; a place held for a call not queued yet does not keep the slot idle.
      while (this.line.length > 0 && this.sent.length < this.limit) this.start(this.line.shift()!, now);
      // Background only when no person has a call waiting or held, and never into the window's last slot.
      while (
        this.peopleAhead === 0 &&
        this.background.length > 0 &&
        this.sent.length < this.backgroundCap &&
        this.backgroundSent.length < this.backgroundShareCap
      ) {
        this.backgroundSent.push(now);
        this.start(this.background.shift()!, now, true);
      }
    }
    this.schedule();
  }

  private start(w: Waiting, now: number, background = false): void {
    this.sent.push(now);
    this.unanswered.set(now, (this.unanswered.get(now) ?? 0) + 1);
    const answered = () => this.answered(now, background);
    w.run().then(answered, answered);
  }

  /** A call started at `startedAt` has answered: it stays in the window from now (see `latencyMs`). */
  private answered(startedAt: number, background: boolean): void {
    const now = Date.now();
    const n = this.unanswered.get(startedAt) ?? 0;
    if (n <= 1) this.unanswered.delete(startedAt);
    else this.unanswered.set(startedAt, n - 1);
    const took = Math.max(0, now - startedAt);
    this.latencyMs = this.latencyMs === 0 ? took : 0.8 * this.latencyMs + 0.2 * took;
    const later = (list: number[]) => {
      const i = list.indexOf(startedAt);
      if (i < 0) return; // already out of the window
      list.splice(i, 1);
      let j = list.length;
      while (j > 0 && list[j - 1]! > now) j--;
      list.splice(j, 0, now);
    };
    later(this.sent);
    if (background) later(this.backgroundSent);
    this.schedule();
  }

  /** Sets the timer for the next moment a waiting call may start, earlier than any pending one. */
  private schedule(): void {
    const now = Date.now();
    this.prune(now);
    let at: number;
    if (this.line.length > 0) {
      at = this.sent.length < this.limit ? this.pausedUntil : Math.max(this.pausedUntil, this.sent[0]! + this.windowMs);
    } else if (this.background.length > 0 && this.peopleAhead === 0) {
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
