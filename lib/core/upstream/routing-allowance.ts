/**
 * Each user's share of the dashboard's routing bucket at the service (docs/security.md "Dashboard:
 * routing calls"). The service counts every routing call of the dashboard's client in one bucket
 * (ROUTING_RATE_LIMIT per window, 600 a minute by default): BIN lookups, previews, validations and
 * changes of every user together. Here each user's calls are counted over the same sliding window
 * in the store (so every dashboard instance counts them together), and a call past the user's
 * allowance is refused before it reaches the service, so one user's burst spends their own share
 * and never the lookups and routing of everyone else.
 */
import { ApiError } from "@/lib/contract/errors";
import type { Store } from "@/lib/core/store/sql";

/** The window the service's routing bucket uses by default (RATE_LIMIT_WINDOW_SECONDS). */
export const ROUTING_WINDOW_SECONDS = 60;

export type RoutingCallKind = "read" | "preview" | "validate" | "lookup" | "change";

export interface RoutingCall {
  kind: RoutingCallKind;
  /** The BINs a preview asks about (they make the refusal's words; a preview is one call whatever their number). */
  bins?: number;
  /** Upstream routing calls this takes (default 1). */
  calls?: number;
}

export interface AllowanceOptions {
  /** Routing calls one user may make in the window (ROUTING_CALLS_PER_USER). */
  perUser: number;
  windowSeconds?: number;
  now?: Date;
}

interface Used {
  kind: RoutingCallKind;
  n: number;
  bins: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);

/** What the user has done in the window, in their words: "previewed 500 BINs 20 times and validated 40 times". */
export function describeUse(used: readonly Used[]): string {
  const by = new Map(used.map((u) => [u.kind, u]));
  const parts: string[] = [];
  const preview = by.get("preview");
  if (preview) {
    const each = preview.bins / preview.n;
    parts.push(Number.isInteger(each) ? `previewed ${plural(each, "BIN")} ${times(preview.n)}` : `previewed ${plural(preview.bins, "BIN")} in ${plural(preview.n, "preview")}`);
  }
  const validate = by.get("validate");
  if (validate) parts.push(`validated ${times(validate.n)}`);
  const lookup = by.get("lookup");
  if (lookup) parts.push(`looked up ${plural(lookup.n, "BIN")}`);
  const read = by.get("read");
  if (read) parts.push(`read the live routing ${times(read.n)}`);
  const change = by.get("change");
  if (change) parts.push(`made ${plural(change.n, "routing change call")}`);
  if (parts.length === 0) return "made no routing calls";
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)!}`;
}

/**
 * Counts `call` against `userId`'s allowance, or refuses it with a 429 that names the user's own
 * use and limit and when the next call frees up. The count and the insert hold the user's row
 * locked, so concurrent calls of one user (any instance) cannot together pass the allowance.
 */
export async function takeRoutingCall(store: Store, userId: string, call: RoutingCall, opts: AllowanceOptions): Promise<void> {
  const windowSeconds = opts.windowSeconds ?? ROUTING_WINDOW_SECONDS;
  const now = opts.now ?? new Date();
  const since = new Date(now.getTime() - windowSeconds * 1000);
  const cost = call.calls ?? 1;
  const refusal = await store.transaction(async (tx) => {
    await tx.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [userId]);
    // Rows outside the window never count again.
    await tx.query("DELETE FROM routing_calls WHERE user_id = $1 AND at <= $2", [userId, since]);
    const rows = await tx.query<{ at: Date; kind: RoutingCallKind; bins: number }>(
      "SELECT at, kind, bins FROM routing_calls WHERE user_id = $1 AND at > $2 ORDER BY at, id",
      [userId, since],
    );
    if (rows.length + cost <= opts.perUser) {
      for (let i = 0; i < cost; i++) {
        await tx.query("INSERT INTO routing_calls (user_id, kind, bins, at) VALUES ($1, $2, $3, $4)", [userId, call.kind, i === 0 ? (call.bins ?? 0) : 0, now]);
      }
      return null;
    }
    const used = new Map<RoutingCallKind, Used>();
    for (const r of rows) {
      const u = used.get(r.kind) ?? { kind: r.kind, n: 0, bins: 0 };
      u.n += 1;
      u.bins += r.bins;
      used.set(r.kind, u);
    }
    // Free once enough of the oldest calls leave the window that this one fits.
    const pivot = rows[Math.max(0, rows.length + cost - opts.perUser - 1)];
    const retryAfter = pivot ? Math.max(1, Math.ceil((new Date(pivot.at).getTime() + windowSeconds * 1000 - now.getTime()) / 1000)) : 1;
    return { used: [...used.values()], n: rows.length, retryAfter };
  });
  if (!refusal) return;
  const window = windowSeconds === 60 ? "this minute" : `in the last ${windowSeconds} s`;
  throw new ApiError(
    429,
    `You have ${describeUse(refusal.used)} ${window}: ${plural(refusal.n, "routing call")}, the most one user may make in ${windowSeconds} s ` +
      `(ROUTING_CALLS_PER_USER=${opts.perUser}), so that BIN lookups and routing stay open for everyone else. Your next call frees up in ${refusal.retryAfter} s.`,
    undefined,
    { "Retry-After": String(refusal.retryAfter) },
    { retry_after: refusal.retryAfter },
  );
}
