import "server-only";
/**
 * The cache warmer: keeps the answers of a known set of queries (dashboards, shared links) fresh, so
 * the people who open them find them in the cache instead of waiting for the quota. It spends only
 * what nobody else wants: it looks only while no call at all is waiting, and its jobs run as
 * BACKGROUND_OWNER, which the quota queue starts only when no person has a call waiting and only
 * while a slot stays free after it (./quota.ts). What to warm comes from `source`, so this file knows
 * nothing of dashboards or links; listing broader queries first lets narrower ones be derived.
 */
import type { Operation } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { UpstreamError } from "./client";
import { canDerive } from "./derive";
import { BACKGROUND_OWNER, type JobView, type ReportGateway } from "./gateway";
import { explain } from "./jobs";
import { CancelledError } from "./quota";
import { queryKey, type ReportQuery } from "./records";

export interface WarmQuery {
  op: Operation;
  query: ReportQuery;
  /**
   * Fetched only while the cache holds no answer for it at all, fresh or not, instead of kept fresh:
   * for a question whose dates move with the day (someone's "last 30 days"), that is once a day,
   * ready for the first look of the morning, not again every few minutes while nobody looks.
   */
  once?: boolean;
}

export interface WarmerOptions {
  /** How often to look. A tick still running when the next is due makes that one a no-op. */
  intervalMs: number;
  /** Refresh an answer this long before it expires, so a visitor never finds it just expired. */
  refreshBeforeSeconds: number;
  /**
   * Most jobs one tick submits. Default: the background share of one window (limit - 1, at least
   * 1): more would only wait in the queue, and the next tick looks again once they have all started.
   */
  maxPerTick?: number;
  /**
   * A query whose background job failed is not tried again for this long (default 15 minutes): a
   * report past the page cap, say, would otherwise spend its first call again on every tick.
   */
  retryFailedAfterMs?: number;
  /** Where the one JSON line per error goes; console.error unless given (tests capture it). */
  log?: (line: string) => void;
}

/** A job a tick submitted, with the query it warms. */
export interface WarmSubmission extends WarmQuery {
  job: JobView;
}

export class Warmer {
  private timer: NodeJS.Timeout | null = null;
  /** The tick under way, if any: ticks never overlap (a slow source must not pile them up). */
  private running: Promise<WarmSubmission[]> | null = null;
  private readonly log: (line: string) => void;
  /** Query key → when a query whose job failed may be tried again. */
  private readonly failedUntil = new Map<string, number>();

  constructor(
    private readonly gateway: ReportGateway,
    private readonly source: () => Promise<WarmQuery[]>,
    private readonly opts: WarmerOptions,
  ) {
    this.log = opts.log ?? ((line) => console.error(line));
  }

  /** Ticks every intervalMs until stop(); the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Stops ticking. Jobs already submitted go on: they are cheap to finish and others may join them. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * One look: when no call is waiting, submits a background job for each source query whose answer
   * is missing or would no longer be fresh `refreshBeforeSeconds` after `now`, and which has no
   * identical job in flight (nor a job that failed within retryFailedAfterMs). Returns the jobs it submitted; [] when it skipped (busy queue, a tick
   * already under way, or an error, which is logged). Never throws.
   */
  tick(now = Date.now()): Promise<WarmSubmission[]> {
    if (this.running) return Promise.resolve([]);
    const run = this.work(now).catch((e: unknown) => {
      this.logError("report warmer tick failed", e);
      return [];
    });
    this.running = run;
    void run.finally(() => (this.running = null));
    return run;
  }

  /** True while anyone's call, people's or background, waits for a slot. */
  private busy(): boolean {
    const q = this.gateway.queue.status();
    return q.queueLength + q.backgroundQueueLength > 0;
  }

  private async work(now: number): Promise<WarmSubmission[]> {
    if (this.busy()) return []; // the quota is wanted; not even the source is asked
    const wanted = await this.source();
    // The source may have taken a while: someone may have queued meanwhile.
    if (this.busy()) return [];
    const max = this.opts.maxPerTick ?? this.gateway.queue.backgroundCap;
    const freshUntil = now + this.opts.refreshBeforeSeconds * 1000;
    const retryMs = this.opts.retryFailedAfterMs ?? 15 * 60_000;
    for (const [key, until] of this.failedUntil) if (until <= now) this.failedUntil.delete(key);
    const submitted: WarmSubmission[] = [];
    for (const { op, query, once } of wanted) {
      if (submitted.length >= max) break;
      const key = queryKey(op, query);
      if (this.failedUntil.has(key)) continue;
      if (once && this.gateway.latest(op, query)) continue;
      // Warm enough when lookup (exact or derived) would still answer at the horizon. This asks the
      // question directly rather than reading `latest`, whose most recent answer may expire sooner
      // than an older one that still covers the query.
      if (this.gateway.lookup(op, query, freshUntil)) continue;
      if (this.gateway.inFlight(op, query)) continue;
      // Derivable from a job this tick just submitted: its answer will cover this one too.
      if (submitted.some((s) => s.op === op && canDerive(op, query, s.query))) continue;
      try {
        const out = this.gateway.submit(op, query, BACKGROUND_OWNER, { freshUntil });
        if (!("job" in out)) continue;
        submitted.push({ op, query, job: out.job });
        // Nobody waits on a background job, so its failure would otherwise go unseen.
        this.gateway.wait(out.job.id).catch((e: unknown) => {
          if (e instanceof CancelledError) return;
          this.failedUntil.set(key, Date.now() + retryMs);
          this.logError("report warmer job failed", e, op);
        });
      } catch (e) {
        // A cap (429) or a query the contract refuses: one line, and on to the next query.
        this.logError("report warmer could not submit", e, op);
      }
    }
    return submitted;
  }

  /**
   * One JSON line: what failed and why, never the query (it may name customers' data), credentials
   * or tokens. Upstream and API errors are told as users are told them (./errors.ts); anything else
   * (the source failing, say) by its class and message, with whatever looks like a secret removed.
   */
  private logError(msg: string, e: unknown, op?: Operation): void {
    const known = e instanceof ApiError || e instanceof UpstreamError;
    const { status, message } = known ? explain(e) : { status: 500, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    this.log(JSON.stringify({ level: "error", msg, ...(op ? { operation: op } : {}), status, error: redact(message) }));
  }
}

/** Strips what could be a credential from an error message: URL user info, bearer tokens, key=value secrets. */
function redact(message: string): string {
  return message
    .replace(/\/\/[^/\s:@]+:[^/\s@]+@/g, "//[redacted]@")
    .replace(/\bBearer\s+[\w.~+/-]+=*/gi, "Bearer [redacted]")
    .replace(/\b(secret|password|token|authorization)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1$2[redacted]")
    .slice(0, 500);
}
