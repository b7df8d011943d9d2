import "server-only";
/**
 * The measured effect of the latest applied versions, run through the report gateway (the pure
 * planning and arithmetic are ./effects.ts).
 */
import { ApiError } from "@/lib/contract/errors";
import { ERROR_TYPES, type ErrorStatus } from "@/lib/contract";
import { todayIn } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import type { JobResult, ReportGateway } from "@/lib/core/upstream/gateway";
import { listRoutingVersions, type RoutingClients } from "./upstream";
import { buildEffects, EFFECT_MIN_ATTEMPTS, EFFECT_WINDOW_MAX_DAYS, planEffects, type EffectsPending, type RoutingEffectsAnswer } from "./effects";
import { isMissing } from "./workspace";

/** Queue owner of the measured-after reports (one fair-queue owner for every reader of the panel). */
export const EFFECTS_OWNER = "routing-effects";
/** How long a request waits for its reports before answering "pending" (the page asks again). */
export const EFFECTS_WAIT_MS = 3_000;

const isErrorStatus = (n: number): n is ErrorStatus => n in ERROR_TYPES;

/**
 * The measured effect of the latest applied versions (lib/features/routing/effects.ts): their reports go
 * through the gateway (cache, fair queue) on their own owner; answered from cache when it can,
 * otherwise waited for up to `waitMs`, then "pending" with the queue position (asking again joins
 * the same jobs, so polling costs no further upstream call).
 */
export async function loadRoutingEffects(
  gateway: ReportGateway,
  clients: RoutingClients,
  opts: { waitMs?: number; now?: Date; minAttempts?: number } = {},
): Promise<RoutingEffectsAnswer | EffectsPending> {
  const { waitMs = EFFECTS_WAIT_MS, now = new Date(), minAttempts = EFFECT_MIN_ATTEMPTS } = opts;
  const timeZone = gateway.config.timeZone;
  const versions = await listRoutingVersions(clients).catch((e: unknown) => {
    if (isMissing(e)) return [];
    throw e;
  });
  const plans = planEffects(versions, todayIn(timeZone, now), timeZone);
  const submitted = plans.map((p) => p.queries.map((q) => gateway.submit("orders", gateway.parse("orders", q.request), EFFECTS_OWNER)));
  const settled = await Promise.all(
    submitted.map((row) =>
      Promise.all(
        row.map(async (out): Promise<JobResult | EffectsPending> => {
          if ("cached" in out) return out.cached;
          const s = ((await gateway.settle(out.job.id, waitMs)) ?? out.job).status;
          switch (s.state) {
            case "done":
              return s.result;
            case "failed":
              throw new ApiError(isErrorStatus(s.error.status) ? s.error.status : 503, `A measured-after report failed: ${s.error.message}`);
            case "cancelled":
              throw new ApiError(503, "A measured-after report was cancelled before it finished; ask again.");
            case "queued":
              return { state: "pending", phase: "queued", position: s.position, estimated_start: s.estimated_start };
            case "fetching":
              return { state: "pending", phase: "fetching", position: null, estimated_start: null };
          }
        }),
      ),
    ),
  );
  const waiting = settled.flat().filter((r): r is EffectsPending => "state" in r);
  if (waiting.length > 0) {
    // The answer is ready when the last of its reports is: say where that one stands.
    const queued = waiting.filter((w) => w.phase === "queued").sort((a, b) => (b.position ?? 0) - (a.position ?? 0));
    return queued[0] ?? waiting[0]!;
  }
  const records: ReportRecord[][][] = settled.map((row) => row.map((r) => (r as JobResult).data));
  return { state: "done", time_zone: timeZone, min_attempts: minAttempts, max_days: EFFECT_WINDOW_MAX_DAYS, versions: buildEffects(plans, records, minAttempts) };
}
