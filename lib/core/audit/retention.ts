/**
 * The audit log's one bound: entries older than AUDIT_RETENTION_DAYS are deleted by this job, which
 * counts what it deleted and logs it. Nothing else removes entries; a busy log grows until the
 * retention takes its oldest days, it is never cut to a size.
 */
import { auditRepo } from "@/lib/core/audit/store";
import type { Store } from "@/lib/core/store/sql";

const DAY_MS = 86_400_000;

export interface PruneResult {
  /** Entries before this moment were deleted. */
  cutoff: Date;
  deleted: number;
}

export function retentionCutoff(retentionDays: number, now = new Date()): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/** Deletes the entries older than `retentionDays` and logs how many (one JSON line). */
export async function pruneAuditLog(store: Store, retentionDays: number, now = new Date()): Promise<PruneResult> {
  const cutoff = retentionCutoff(retentionDays, now);
  const deleted = await store.transaction((tx) => auditRepo(tx).pruneOlderThan(cutoff));
  console.info(JSON.stringify({ level: "info", msg: "audit log pruned", retention_days: retentionDays, cutoff: cutoff.toISOString(), deleted }));
  return { cutoff, deleted };
}

const timerKey = Symbol.for("payments-analytics.audit-retention");
type WithTimer = typeof globalThis & { [timerKey]?: ReturnType<typeof setInterval> };

/** Prunes now and then every `intervalMs` (a day), once per process; failures are logged and retried next time. */
export function startAuditRetention(getStore: () => Promise<Store>, retentionDays: number, intervalMs = DAY_MS): void {
  const g = globalThis as WithTimer;
  if (g[timerKey]) return;
  const run = () =>
    getStore()
      .then((store) => pruneAuditLog(store, retentionDays))
      .catch((e: unknown) =>
        console.error(JSON.stringify({ level: "error", msg: "audit log prune failed", error: e instanceof Error ? e.message : String(e) })),
      );
  void run();
  g[timerKey] = setInterval(run, intervalMs);
  g[timerKey].unref();
}
