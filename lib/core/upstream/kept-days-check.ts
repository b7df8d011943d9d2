import "server-only";
/**
 * The hourly check of kept days (DayAnswers.checkKeptDays): while nobody waits for the quota, the
 * settled days of the questions used recently are compared with the upstream's daily totals, and a
 * day that moved is forgotten. It runs whether or not the background warmer does: it is what keeps
 * a kept day from being shown as current after it changed upstream.
 */
import type { ReportGateway } from "./gateway";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

type CheckResult = Awaited<ReturnType<NonNullable<ReportGateway["days"]>["checkKeptDays"]>>;

/**
 * One look: checks when the gateway keeps days, nobody's call waits and no check is under way
 * (`busy` says whether one is). Resolves to what the check found, or null when it did not check.
 */
export async function checkKeptDaysWhenIdle(gateway: ReportGateway, usedWithinMs: number, busy: { checking: boolean }, now = Date.now()): Promise<CheckResult | null> {
  const q = gateway.queue.status();
  if (busy.checking || !gateway.days || q.queueLength + q.backgroundQueueLength > 0) return null;
  busy.checking = true;
  try {
    return await gateway.days.checkKeptDays({ usedSince: now - usedWithinMs, everyMs: DAY_MS });
  } catch (e) {
    console.error(JSON.stringify({ level: "error", msg: "kept days check failed", error: e instanceof Error ? e.name : "unknown" }));
    return null;
  } finally {
    busy.checking = false;
  }
}

/**
 * Looks once an hour (each question compared at most once a day) at the questions used within
 * `usedWithinDays`, at least the last day's, so a day that moved upstream is not shown as current
 * for more than a day after it is used.
 */
export function startKeptDaysCheck(gateway: ReportGateway, usedWithinDays: number): void {
  const busy = { checking: false };
  const usedWithinMs = Math.max(1, usedWithinDays) * DAY_MS;
  setInterval(() => void checkKeptDaysWhenIdle(gateway, usedWithinMs, busy), HOUR_MS).unref();
}
