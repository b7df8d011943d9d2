/**
 * The line PDF renders wait in, bounded because a render holds a browser page and a few hundred MB:
 * - `concurrency` renders at a time per process, the rest wait in line;
 * - each owner (a user, the background) may have `perOwner` renders waiting or running, and everyone
 *   together `maxWaiting`: past either, a 429 that says which;
 * - anonymous renders (share-link visitors, each its own owner by its trusted client address) may
 *   have `perVisitor` each and `anonymousMax` together, a part of `maxWaiting`, so signed-in users
 *   and scheduled sends always keep `maxWaiting - anonymousMax` places; and they wait behind every
 *   signed-in or scheduled render in line, so a link holder never delays a person's PDF by more
 *   than the one render already running.
 */
import { PdfError } from "./errors";

export interface LineLimits {
  /** Renders at once in this process. */
  concurrency: number;
  /** Renders one owner may have waiting or running. */
  perOwner: number;
  /** Renders waiting or running for everyone together. */
  maxWaiting: number;
  /** Renders one anonymous visitor (one client address) may have waiting or running. */
  perVisitor: number;
  /** Anonymous renders waiting or running together: at most this many of `maxWaiting`'s places. */
  anonymousMax: number;
}

export class PdfLine {
  private running = 0;
  /** Renders waiting: people's and scheduled ones first, anonymous visitors' after them. */
  private readonly line: (() => void)[] = [];
  private readonly anonymousLine: (() => void)[] = [];
  /** Anonymous renders waiting or running. */
  private anonymous = 0;
  private readonly owners = new Map<string, number>();
  private peakWaiting = 0;

  /** `onBusy` runs as a render starts, `onIdle` when the last running one ends with none waiting. */
  constructor(
    private readonly limits: LineLimits,
    private readonly hooks: { onBusy(): void; onIdle(): void },
  ) {}

  /** Renders waiting or running now, and the most there have been at once. */
  stats(): { running: number; waiting: number; anonymous: number; peak: number } {
    return { running: this.running, waiting: this.line.length + this.anonymousLine.length, anonymous: this.anonymous, peak: this.peakWaiting };
  }

  /** Runs `render` when its turn comes, or refuses at once (PdfError "owner-busy" or "busy") when the line is full for this owner or for everyone. */
  async run<T>(owner: string, anonymous: boolean, render: () => Promise<T>): Promise<T> {
    // Anonymous owners are keyed apart, so no address can be read as a user's id.
    const key = anonymous ? `visitor:${owner}` : `owner:${owner}`;
    const mine = this.owners.get(key) ?? 0;
    if (anonymous && mine >= this.limits.perVisitor) {
      throw new PdfError("owner-busy", `A PDF of a shared page is already being made for you (at most ${this.limits.perVisitor} at once). Wait for it to finish.`, 10);
    }
    if (!anonymous && mine >= this.limits.perOwner) {
      throw new PdfError("owner-busy", `You already have ${mine} PDFs being made, the most one person may have at once (${this.limits.perOwner}). Wait for them to finish.`, 10);
    }
    const total = this.running + this.line.length + this.anonymousLine.length;
    if (anonymous && this.anonymous >= this.limits.anonymousMax) {
      throw new PdfError("busy", `The dashboard is already making ${this.anonymous} PDFs of shared pages, the most it takes at once (${this.limits.anonymousMax}). Try again in a minute.`, 60);
    }
    if (total >= this.limits.maxWaiting) {
      throw new PdfError("busy", `The dashboard is already making ${total} PDFs, the most it takes at once (${this.limits.maxWaiting}). Try again in a minute.`, 60);
    }
    this.owners.set(key, mine + 1);
    if (anonymous) this.anonymous += 1;
    this.peakWaiting = Math.max(this.peakWaiting, total + 1);
    try {
      await this.acquire(anonymous);
      try {
        return await render();
      } finally {
        this.release();
      }
    } finally {
      if (anonymous) this.anonymous -= 1;
      const left = (this.owners.get(key) ?? 1) - 1;
      if (left <= 0) this.owners.delete(key);
      else this.owners.set(key, left);
    }
  }

  private acquire(anonymous: boolean): Promise<void> {
    this.hooks.onBusy();
    if (this.running < this.limits.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => (anonymous ? this.anonymousLine : this.line).push(resolve));
  }

  private release(): void {
    const next = this.line.shift() ?? this.anonymousLine.shift();
    if (next) return next();
    this.running -= 1;
    if (this.running === 0) this.hooks.onIdle();
  }
}
