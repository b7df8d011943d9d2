import "server-only";
/**
 * The background work of the dashboard: the scheduler that runs each alert rule's and scheduled
 * report's slots (claimed in the store with a lease, so each slot runs once across processes and
 * restarts), the mail worker that sends what they queue (outbox rows claimed the same way), the
 * share-link warmer and the audit log's retention. One process runs it: the web server itself on
 * the embedded store (only one process can open that), or `npm run worker` (scripts/worker.ts) beside
 * any number of web servers on PostgreSQL with SEPARATE_WORKER=true.
 */
import { startAuditRetention } from "@/lib/core/audit/retention";
import type { ServerEnv } from "@/lib/core/env/env";
import { MailWorker } from "@/lib/core/mail/worker";
import { mailConfigFrom } from "@/lib/core/mail/transport";
import { mailPolicyFrom } from "@/lib/features/notifications/policy";
import { runSlot, scheduledItems, type NotifyDeps } from "@/lib/features/notifications/slots";
import { mailQueue } from "@/lib/features/notifications/mail-queue";
import { Scheduler, defaultWorkerId } from "@/lib/features/notifications/scheduler";
import { startWarmer } from "@/lib/features/warming/warmer";
import { startKeptDaysCheck } from "@/lib/core/upstream/kept-days-check";
import { getStore } from "@/lib/core/store";
import { getGateway } from "@/lib/core/upstream";

export interface BackgroundWork {
  /** Named on every slot claim and outbox claim this process makes. */
  workerId: string;
  /** Stops the scheduler and the mail worker, each after the run or send under way. */
  stop(): Promise<void>;
}

const globalKey = Symbol.for("payments-analytics.background-work");
type WithWork = typeof globalThis & { [globalKey]?: Promise<BackgroundWork> };

/**
 * Starts the background work once per process (a second call returns the first's). The warmer and the
 * retention need no open store to start; the scheduler and the mail worker wait for it.
 */
export function startBackgroundWork(env: ServerEnv): Promise<BackgroundWork> {
  const g = globalThis as WithWork;
  g[globalKey] ??= start(env);
  return g[globalKey];
}

async function start(env: ServerEnv): Promise<BackgroundWork> {
  startWarmer();
  // Kept days are checked against the upstream whether or not anything is warmed.
  startKeptDaysCheck(getGateway(), env.SHARE_WARM_DAYS);
  // The audit log's retention: pruned now and daily, each run logged with what it deleted.
  startAuditRetention(getStore, env.AUDIT_RETENTION_DAYS);
  const db = await getStore();
  const config = mailConfigFrom(env);
  const policy = mailPolicyFrom(env);
  const deps: NotifyDeps = { db, gateway: getGateway(), env, mail: mailQueue(config.enabled, policy), policy };
  const workerId = defaultWorkerId();
  const scheduler = new Scheduler({
    db,
    workerId,
    timeZone: env.REPORT_TIMEZONE,
    tickSeconds: env.SCHEDULER_TICK_SECONDS,
    items: () => scheduledItems(db),
    run: (item, slot, ctx) => runSlot(deps, item, ctx.late, slot),
  });
  const mail = new MailWorker({ db, config, ...(env.SMTP_PASSWORD ? { password: env.SMTP_PASSWORD } : {}), workerId });
  scheduler.start();
  mail.start();
  return {
    workerId,
    stop: async () => {
      await scheduler.stop();
      await mail.stop();
    },
  };
}
