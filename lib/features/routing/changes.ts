import "server-only";
/**
 * A routing change's life (docs/routing.md "Workspace"): validated and proposed against the live
 * version, approved by another editor (two-person rule) or applied at once, rejected, superseded;
 * restores alike. Every step is recorded as a change row and an audit entry in one transaction
 * (./record.ts).
 *
 * The service decides what is live: a change is applied with expected_version = the version it was
 * reviewed against, so nothing reviewed on an older version can overwrite a newer one (409 →
 * superseded). The dashboard's store only remembers who asked, who decided and what came of it.
 */
import type { RoutingConfigVersion } from "@/lib/contract/bin-routing";
import { ApiError } from "@/lib/contract/errors";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import { usersRepo } from "@/lib/core/auth/users";
import { applyRoutingConfig, listRoutingVersions, restoreRoutingConfig, validateRoutingConfig } from "./upstream";
import { routingChangesRepo } from "./changes-store";
import type { RoutingChange } from "./model";
import { requireApprover, withdrawForProposer, isEditor } from "./approval";
import { diffConfigs, normalizeConfig } from "./diff";
import { requireCredential, requireEdit, type RoutingUser } from "./permissions";
import { recordChange } from "./record";
import { liveOrNull, requireLive, takeCall, type WorkspaceDeps } from "./workspace";

export interface ChangeInput {
  config: unknown;
  reason: string;
  base_version: number;
}

function staleBase(live: number, base: number): ApiError {
  return new ApiError(
    409,
    `The live routing configuration is now version ${live}, not version ${base} that this change was made against; review the difference against version ${live} and propose again`,
  );
}

/** The author the service records for a version: who proposed it, and who approved it when that was someone else. */
function authorOf(change: RoutingChange, approver: RoutingUser): string {
  const both = `${change.proposed_by.email} (approved by ${approver.email})`;
  return change.proposed_by.email === approver.email || both.length > 200 ? change.proposed_by.email : both;
}

/**
 * Proposes `input.config` against `input.base_version`, which must still be live. With the
 * two-person rule the change waits for another editor; without it, it is applied now (and recorded
 * as applied). A configuration the service finds invalid, or one that changes nothing, is refused.
 */
export async function proposeChange(deps: WorkspaceDeps, user: RoutingUser, input: ChangeInput): Promise<RoutingChange> {
  requireEdit(user);
  if (!deps.twoPerson) requireCredential(deps.clients);
  // Reading the live version and validating (applying goes with the routing credential's own bucket).
  await takeCall(deps, user, { kind: "change", calls: 2 });
  const live = await requireLive(deps);
  if (live.version !== input.base_version) throw staleBase(live.version, input.base_version);
  const validation = await validateRoutingConfig(input.config, deps.clients);
  if (!validation.valid) {
    throw ApiError.badRequest(`The configuration has ${validation.problems.length} problem${validation.problems.length === 1 ? "" : "s"}; nothing was proposed`, validation.problems);
  }
  const config = normalizeConfig(input.config) as RoutingConfig;
  const current = normalizeConfig(live.config);
  if (current && diffConfigs(current, config).unchanged) throw ApiError.badRequest(`The configuration is the same as live version ${live.version}; there is nothing to change`);
  const actor = { id: user.id, email: user.email };
  const proposal = { kind: "change" as const, base_version: input.base_version, config, reason: input.reason, proposer: actor };

  const detail = (change: RoutingChange) => ({ change_id: change.id, base_version: input.base_version });
  if (deps.twoPerson) {
    return recordChange(deps.store, user, (changes) => changes.create(proposal), (change) => ({
      event: "proposed",
      version: String(input.base_version),
      reason: input.reason,
      detail: detail(change),
    }));
  }
  const applied = await applyRoutingConfig({ config, reason: input.reason, author: user.email, expected_version: input.base_version }, deps.clients);
  return recordChange(deps.store, user, (changes) => changes.create(proposal, { applied_version: applied.version }), (change) => ({
    event: "applied",
    version: String(applied.version),
    reason: input.reason,
    detail: detail(change),
  }));
}

/**
 * Restores `version` (default: the one before the live one) as a new version. With the two-person
 * rule it is proposed like any change and restored on approval.
 */
export async function proposeRestore(deps: WorkspaceDeps, user: RoutingUser, input: { reason: string; version?: number | undefined }): Promise<RoutingChange> {
  requireEdit(user);
  if (!deps.twoPerson) requireCredential(deps.clients);
  await takeCall(deps, user, { kind: "change", calls: 2 });
  const live = await requireLive(deps);
  const target = input.version ?? live.version - 1;
  if (target < 1) throw ApiError.badRequest(`Version ${live.version} is the first version; there is no earlier one to restore`);
  if (target === live.version) throw ApiError.badRequest(`Version ${target} is the live version already`);
  const versions = await listRoutingVersions(deps.clients);
  if (!versions.some((v) => v.version === target)) throw new ApiError(404, `There is no routing configuration version ${target}`);
  const actor = { id: user.id, email: user.email };
  const proposal = { kind: "restore" as const, base_version: live.version, restore_version: target, reason: input.reason, proposer: actor };

  if (deps.twoPerson) {
    return recordChange(deps.store, user, (changes) => changes.create(proposal), (change) => ({
      event: "proposed",
      version: String(live.version),
      reason: input.reason,
      detail: { change_id: change.id, base_version: live.version, restore_version: target },
    }));
  }
  const restored = await restoreRoutingConfig({ reason: input.reason, author: user.email, version: target, expected_version: live.version }, deps.clients);
  return recordChange(deps.store, user, (changes) => changes.create(proposal, { applied_version: restored.version }), (change) => ({
    event: "restored",
    version: String(restored.version),
    reason: input.reason,
    detail: { change_id: change.id, base_version: live.version, restored_from: target },
  }));
}

async function pendingChange(deps: WorkspaceDeps, id: string): Promise<RoutingChange> {
  const change = await routingChangesRepo(deps.store).get(id);
  if (!change) throw new ApiError(404, "No such routing change");
  if (change.status !== "pending") throw new ApiError(409, `This change is ${change.status} already${change.decided_by ? ` (by ${change.decided_by.email})` : ""}`);
  return change;
}

/** The 409 of a change the live version overtook: says so, and carries the change as now recorded. */
function supersededError(change: RoutingChange): ApiError {
  return new ApiError(409, `${change.decision_reason ?? "The live version moved on"}; the change was marked superseded and nothing was applied`, undefined, {}, { change });
}

/**
 * Approves a pending change and applies it with expected_version = its base version. The proposer
 * may not approve their own while the two-person rule is on. When the service answers 409 (the live
 * version moved on), the change is marked superseded and the 409 says so.
 */
export async function approveChange(deps: WorkspaceDeps, user: RoutingUser, id: string): Promise<RoutingChange> {
  requireEdit(user);
  requireCredential(deps.clients);
  const change = await pendingChange(deps, id);
  const actor = { id: user.id, email: user.email };
  const repo = routingChangesRepo(deps.store);
  if (deps.twoPerson) {
    const proposer = change.proposed_by.id ? await usersRepo(deps.store).findById(change.proposed_by.id) : null;
    if (!proposer || !isEditor(proposer)) {
      // The users CLI changed the proposer (the Users page would have withdrawn it already).
      const withdrawn = await deps.store.transaction((tx) => withdrawForProposer(tx, change, user, change.proposed_by.email));
      throw new ApiError(409, `${withdrawn?.decision_reason ?? "This change was withdrawn"}; nothing was applied`, undefined, {}, withdrawn ? { change: withdrawn } : {});
    }
    await requireApprover(deps.store, change, user.id);
  }
  if (!(await repo.claim(id, actor))) throw new ApiError(409, "Another editor is deciding this change right now, or has just decided it; reload to see the outcome");

  let version: RoutingConfigVersion;
  try {
    version =
      change.kind === "change"
        ? await applyRoutingConfig({ config: change.config!, reason: change.reason, author: authorOf(change, user), expected_version: change.base_version }, deps.clients)
        : await restoreRoutingConfig(
            { reason: change.reason, author: authorOf(change, user), version: change.restore_version!, expected_version: change.base_version },
            deps.clients,
          );
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      const live = await liveOrNull(deps).catch(() => null);
      const why = `Superseded: the live configuration became version ${live?.version ?? "(unknown)"} after this change was made against version ${change.base_version}`;
      const superseded = await recordChange(deps.store, user, (changes) => changes.superseded(id, actor, why), () => ({
        event: "superseded",
        version: String(change.base_version),
        reason: why,
        detail: { change_id: id, base_version: change.base_version, proposed_by: change.proposed_by.email, live_version: live?.version ?? null },
      }));
      throw supersededError(superseded ?? { ...change, status: "superseded", decision_reason: why });
    }
    // Nothing was applied (a refusal or an outage): the change stays pending for another try.
    await repo.release(id, actor);
    throw e;
  }
  const base = { version: String(version.version), reason: change.reason };
  const detail = { change_id: id, base_version: change.base_version, proposed_by: change.proposed_by.email, ...(change.restore_version ? { restored_from: change.restore_version } : {}) };
  const decided = await recordChange(deps.store, user, (changes) => changes.applied(id, actor, version.version), () => [
    { ...base, event: "approved", detail },
    { ...base, event: change.kind === "restore" ? "restored" : "applied", detail },
  ]);
  // The claim is ours, so the row is still pending; a null here would mean the store lost our write.
  if (!decided) throw new Error(`routing change ${id} was applied as version ${version.version} but could not be marked applied`);
  return decided;
}

/** Rejects a pending change with a reason; any editor may, the proposer too (withdrawing it). */
export async function rejectChange(deps: WorkspaceDeps, user: RoutingUser, id: string, reason: string): Promise<RoutingChange> {
  requireEdit(user);
  await pendingChange(deps, id);
  const actor = { id: user.id, email: user.email };
  const decided = await recordChange(deps.store, user, (changes) => changes.rejected(id, actor, reason), (rejected) => ({
    event: "rejected",
    version: String(rejected.base_version),
    reason,
    detail: { change_id: id, base_version: rejected.base_version, proposed_by: rejected.proposed_by.email },
  }));
  if (!decided) throw new ApiError(409, "This change was decided by someone else a moment ago; reload to see the outcome");
  return decided;
}
