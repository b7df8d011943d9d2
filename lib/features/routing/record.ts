/**
 * A routing change's step, recorded: the change row as the step leaves it and the step's audit
 * entries, in one transaction, so the audit log holds an entry for every recorded decision and
 * none for a decision that did not happen (a row another decider took first writes nothing).
 */
import { appendRoutingAudit, inTransaction, userActor, type RoutingEvent } from "@/lib/core/audit/log";
import type { AuditDetailValue } from "@/lib/core/audit/store";
import type { Sql, Store } from "@/lib/core/store/sql";
import { routingChangesRepo } from "./changes-store";
import type { RoutingChange } from "./model";

/** One audit entry of a step; its actor is the step's. */
export interface StepEntry {
  event: RoutingEvent;
  version: string;
  reason: string;
  detail: Record<string, AuditDetailValue>;
}

/**
 * Writes the change row with `write` and, when it wrote one, the entries `audit` names for it, by
 * `by`, in one transaction: a new one on a store, or the caller's.
 */
export async function recordChange<C extends RoutingChange | null>(
  db: Sql | Store,
  by: { id: string; email: string; address?: string | null },
  write: (changes: ReturnType<typeof routingChangesRepo>) => Promise<C>,
  audit: (change: NonNullable<C>) => StepEntry | StepEntry[],
): Promise<C> {
  return inTransaction(db, async (tx) => {
    const change = await write(routingChangesRepo(tx));
    if (change === null) return change;
    const actor = userActor(by);
    for (const entry of [audit(change as NonNullable<C>)].flat()) await appendRoutingAudit(tx, { ...entry, actor });
    return change;
  });
}
