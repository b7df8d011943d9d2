import "server-only";
/**
 * The routing workspace's rules (docs/routing.md "Workspace"): who may read and change live routing,
 * and a change's life: validated and diffed against the live version, proposed, approved by another
 * editor (two-person rule) or applied at once, rejected, superseded; restores alike. Every step is
 * recorded as a change row and appended to the audit log in the same transaction.
 *
 * The service decides what is live: a change is applied with expected_version = the version it was
 * reviewed against, so nothing reviewed on an older version can overwrite a newer one (409 →
 * superseded). The dashboard's store only remembers who asked, who decided and what came of it.
 */
import { z } from "zod";
import { appendRoutingAudit, userActor } from "@/lib/core/audit/log";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import type { RoutingConfigVersion, RoutingLiveConfig, RoutingValidation } from "@/lib/contract/bin-routing";
import { ApiError } from "@/lib/contract/errors";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import { serverEnv } from "@/lib/core/env/env";
import { getStore } from "@/lib/core/store";
import { routingChangesRepo, type RoutingChange } from "@/lib/features/routing/changes-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import {
  applyRoutingConfig,
  getRoutingConfig,
  listRoutingVersions,
  NO_WRITE_CREDENTIAL,
  restoreRoutingConfig,
  routingClients,
  validateRoutingConfig,
  type RoutingClients,
} from "@/lib/features/bin-lookup/upstream";
import { hasRole, type Role } from "@/lib/core/auth/roles";
import { ERROR_TYPES, type ErrorStatus } from "@/lib/contract";
import { todayIn } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import type { JobResult, ReportGateway } from "@/lib/core/upstream/gateway";
import type { UpstreamClient } from "@/lib/core/upstream/client";
import { takeRoutingCall, type RoutingCall } from "./allowance";
import { approvalRefusal, requireApprover, withdrawForProposer, isEditor } from "./approval";
import { diffConfigs, normalizeConfig, type ConfigDiff } from "./diff";
import { buildEffects, EFFECT_MIN_ATTEMPTS, EFFECT_WINDOW_MAX_DAYS, planEffects, type EffectsPending, type RoutingEffectsAnswer } from "./effects";

export type { RoutingChange } from "@/lib/features/routing/changes-store";

/** Everything a workspace operation works with; the routes build it from the process's store, clients and environment. */
export interface WorkspaceDeps {
  store: Store;
  clients: RoutingClients;
  /** ROUTING_TWO_PERSON: a change is applied only once another editor approves it. */
  twoPerson: boolean;
  /** ROUTING_CALLS_PER_USER: each user's share of the dashboard's routing bucket at the service. */
  callsPerUser: number;
  /** The allowance's clock (tests move it; the default is the real one). */
  now?: () => Date;
}

export interface RoutingUser {
  id: string;
  email: string;
  role: Role;
  /** The routing permission (users admin). */
  routing: boolean;
}

/**
 * Admins, and analysts holding the routing permission, change routing; every analyst reads it.
 * Viewers see no routing (it shows which MIDs take which cards) and a routing permission does not
 * lift them: it is granted beside a role that can read.
 */
export function canReadRouting(user: Pick<RoutingUser, "role">): boolean {
  return hasRole(user.role, "analyst");
}

export function canEditRouting(user: Pick<RoutingUser, "role" | "routing">): boolean {
  return user.role === "admin" || (user.routing && canReadRouting(user));
}

/** Why `user` may not change routing here, in their words; null when they may. */
export function readOnlyReason(user: Pick<RoutingUser, "role" | "routing">, writeCredential: boolean): string | null {
  if (!canEditRouting(user)) return "You can read the routing configuration but not change it: that needs the admin role or the routing permission, which an admin grants on the Users page.";
  if (!writeCredential) return NO_WRITE_CREDENTIAL;
  return null;
}

/** The session user with their routing permission, read now (it may have changed since sign-in); 403 for those who may not read. */
export async function routingUser(store: Store, session: { id: string; email: string; role: Role }): Promise<RoutingUser> {
  const stored = await usersRepo(store).findById(session.id);
  const user: RoutingUser = { id: session.id, email: session.email, role: session.role, routing: stored?.routing === true };
  if (!canReadRouting(user)) throw new ApiError(403, `The routing workspace needs the analyst role or higher; you are signed in as ${user.role}`);
  return user;
}

/** The workspace as the routes use it: the process's store, the routing clients and ROUTING_TWO_PERSON, with the user's rights. */
export async function workspaceFor(session: SessionUser): Promise<{ deps: WorkspaceDeps; user: RoutingUser }> {
  const store = await getStore();
  const user = await routingUser(store, session);
  const env = serverEnv();
  return { deps: { store, clients: routingClients(), twoPerson: env.ROUTING_TWO_PERSON, callsPerUser: env.ROUTING_CALLS_PER_USER }, user };
}

/** Counts `call` against the user's share of the routing bucket (lib/features/routing/allowance.ts); a 429 naming their own use past it. */
export function takeCall(deps: WorkspaceDeps, user: { id: string }, call: RoutingCall): Promise<void> {
  return takeRoutingCall(deps.store, user.id, call, { perUser: deps.callsPerUser, ...(deps.now ? { now: deps.now() } : {}) });
}

/**
 * The routing clients for work whose number of calls depends on its data (the proposals' previews,
 * the effects' versions): each call the reading client sends is counted against `user` first, as a
 * read, so such work spends the user's share call by call and stops at it.
 */
export function countedClients(deps: WorkspaceDeps, user: { id: string }): RoutingClients {
  const read = deps.clients.read;
  const counted = new Proxy(read, {
    get(target, prop) {
      if (prop === "extension") {
        return async (...args: Parameters<UpstreamClient["extension"]>) => {
          await takeCall(deps, user, { kind: "read" });
          return target.extension(...args);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { read: counted, write: deps.clients.write };
}

// ---------------------------------------------------------------------------------------------
// The routes' request bodies

const reasonField = z
  .string({ error: "reason is required: say why" })
  .trim()
  .min(1, { error: "reason must not be empty: say why" })
  .max(1000, { error: "reason must be at most 1000 characters" });
/** Deeper than any configuration in the file format can be (groups → members → a member's fields is 4). */
export const MAX_CONFIG_DEPTH = 16;

/** Whether `v` nests objects or arrays deeper than `max`, found without recursion (a hostile body may be thousands deep). */
export function deeperThan(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A change's own fields, which the dashboard sends beside the configuration and never takes from inside it. */
const CHANGE_FIELDS = ["reason", "author", "expected_version"] as const;

export const configField = z
  .unknown()
  .refine((v) => v !== undefined, { error: "config is required (the configuration in the file format)" })
  .superRefine((v, ctx) => {
    if (deeperThan(v, MAX_CONFIG_DEPTH)) {
      ctx.addIssue({ code: "custom", message: `config is nested deeper than ${MAX_CONFIG_DEPTH} levels; a routing configuration is never that deep` });
      return;
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) return;
    for (const field of CHANGE_FIELDS) {
      if (field in v) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `config must not carry ${field}: it is the change's own field${field === "reason" ? " (give it beside config)" : ", which the dashboard sets"}`,
        });
      }
    }
  });

export const ValidateRequest = z.strictObject({ config: configField });
export const ChangeRequest = z.strictObject({
  config: configField,
  reason: reasonField,
  base_version: z.int({ error: "base_version must be the live version number the change was made against" }).min(0),
});
export const RejectRequest = z.strictObject({ reason: reasonField });
export const RestoreRequest = z.strictObject({
  reason: reasonField,
  version: z.int({ error: "version must be a version number" }).min(1, { error: "version must be ≥ 1" }).optional(),
});

function requireEdit(user: RoutingUser): void {
  if (!canEditRouting(user)) {
    throw new ApiError(403, "Changing routing needs the admin role or the routing permission; an admin can grant the permission on the Users page");
  }
}

function requireCredential(deps: WorkspaceDeps): void {
  if (!deps.clients.write) throw new ApiError(503, NO_WRITE_CREDENTIAL);
}

const isMissing = (e: unknown) => e instanceof ApiError && e.status === 404;

/** The live version, or null when the service has no configuration loaded. */
async function liveOrNull(deps: WorkspaceDeps): Promise<RoutingLiveConfig | null> {
  try {
    const live = await getRoutingConfig(deps.clients);
    remember(live.version, live.config);
    return live;
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

async function requireLive(deps: WorkspaceDeps): Promise<RoutingLiveConfig> {
  const live = await liveOrNull(deps);
  if (!live) throw new ApiError(409, "The routing service has no configuration loaded; load one with `routing load` first");
  return live;
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface WorkspaceAnswer {
  /** The live version with each group's state; null when nothing is loaded. */
  live: RoutingLiveConfig | null;
  /** Every version, newest first. */
  versions: RoutingConfigVersion[];
  pending: RoutingChange[];
  /** Ids of pending changes made against a version that is no longer live: approving them would supersede them. */
  stale_pending: string[];
  /** The latest changes in any state (what came of them), newest first. */
  recent: RoutingChange[];
  can_edit: boolean;
  two_person: boolean;
  /** The dashboard holds the routing credential that applies changes. */
  write_credential: boolean;
  /** Why this user cannot change routing here (no right, or no credential); null when they can. */
  read_only_reason: string | null;
  /** The signed-in user's id, so the page knows which pending changes are their own. */
  user_id: string;
  /** Under the two-person rule: pending changes of others this user may not approve (docs/routing.md "Who may approve"), with why. */
  approval_refusals: Record<string, string>;
}

/** Why `user` may not approve each of `pending` (their own aside), read now. */
async function approvalRefusals(deps: WorkspaceDeps, user: RoutingUser, pending: readonly RoutingChange[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const others = pending.filter((c) => c.proposed_by.id !== user.id);
  if (!deps.twoPerson || !canEditRouting(user) || others.length === 0) return out;
  const users = usersRepo(deps.store);
  const me = await users.findById(user.id);
  if (!me) return out;
  for (const c of others) {
    const proposer = c.proposed_by.id ? await users.findById(c.proposed_by.id) : null;
    const why = approvalRefusal(c, proposer, me);
    if (why) out[c.id] = why;
  }
  return out;
}

/**
 * The workspace as `user` may see it. The routing-admin client's id on each version is for those who
 * change routing (it names the credential that applied it); readers get null in its place.
 */
export async function loadWorkspace(deps: WorkspaceDeps, user: RoutingUser): Promise<WorkspaceAnswer> {
  await takeCall(deps, user, { kind: "read", calls: 2 });
  const changes = routingChangesRepo(deps.store);
  const [live, versions, pending, recent] = await Promise.all([
    liveOrNull(deps),
    listRoutingVersions(deps.clients).catch((e: unknown) => {
      if (isMissing(e)) return [];
      throw e;
    }),
    changes.pending(),
    changes.recent(20),
  ]);
  const writeCredential = deps.clients.write !== null;
  const editor = canEditRouting(user);
  return {
    live: live && !editor ? { ...live, client_id: null } : live,
    versions: editor ? versions : versions.map((v) => ({ ...v, client_id: null })),
    pending,
    stale_pending: live ? pending.filter((c) => c.base_version !== live.version).map((c) => c.id) : [],
    recent,
    can_edit: editor,
    two_person: deps.twoPerson,
    write_credential: writeCredential,
    read_only_reason: readOnlyReason(user, writeCredential),
    user_id: user.id,
    approval_refusals: await approvalRefusals(deps, user, pending),
  };
}

// ---------------------------------------------------------------------------------------------
// Validation and diff

export interface ValidateAnswer extends RoutingValidation {
  /** Against the live version; null when the configuration's shape is wrong (see problems) or nothing is live. */
  diff: ConfigDiff | null;
  /** The live version the diff was taken against. */
  live_version: number | null;
}

/**
 * Configurations of versions this process has seen, by version number. A version never changes, so
 * the one the service names as live is diffed from here without asking for it again.
 */
const versionConfigs = new Map<number, unknown>();
const VERSION_CONFIGS_KEPT = 8;

function remember(version: number, config: unknown): void {
  versionConfigs.delete(version);
  versionConfigs.set(version, config);
  for (const old of versionConfigs.keys()) {
    if (versionConfigs.size <= VERSION_CONFIGS_KEPT) break;
    versionConfigs.delete(old);
  }
}

/**
 * The service's dry run of `config` (every problem with its path) and its diff against the live
 * version: ONE call to the service, which names the live version it checked against; that
 * version's configuration comes from this process's memory (the workspace's reads fill it) and is
 * asked for only when it has not been seen yet. Counted against the user's share of the bucket.
 */
export async function validateChange(deps: WorkspaceDeps, user: { id: string }, config: unknown): Promise<ValidateAnswer> {
  await takeCall(deps, user, { kind: "validate" });
  const validation = await validateRoutingConfig(config, deps.clients);
  let liveVersion = validation.live_version;
  let current: unknown = liveVersion ? versionConfigs.get(liveVersion) : undefined;
  if (liveVersion === undefined || (liveVersion !== null && current === undefined)) {
    // A service that does not name the live version, or one not seen here yet: one more call.
    const live = await liveOrNull(deps);
    liveVersion = live?.version ?? null;
    current = live?.config;
  }
  const proposed = normalizeConfig(config);
  const currentConfig = current === undefined ? null : normalizeConfig(current);
  return { ...validation, diff: proposed && currentConfig ? diffConfigs(currentConfig, proposed) : null, live_version: liveVersion ?? null };
}

// ---------------------------------------------------------------------------------------------
// Changes

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
  if (!deps.twoPerson) requireCredential(deps);
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

  if (deps.twoPerson) {
    return deps.store.transaction(async (tx) => {
      const change = await routingChangesRepo(tx).create(proposal);
      await appendRoutingAudit(tx, {
        event: "proposed",
        actor: userActor(user),
        version: String(input.base_version),
        reason: input.reason,
        detail: { change_id: change.id, base_version: input.base_version },
      });
      return change;
    });
  }
  const applied = await applyRoutingConfig({ config, reason: input.reason, author: user.email, expected_version: input.base_version }, deps.clients);
  return deps.store.transaction(async (tx) => {
    const change = await routingChangesRepo(tx).create(proposal, { applied_version: applied.version });
    await appendRoutingAudit(tx, {
      event: "applied",
      actor: userActor(user),
      version: String(applied.version),
      reason: input.reason,
      detail: { change_id: change.id, base_version: input.base_version },
    });
    return change;
  });
}

/**
 * Restores `version` (default: the one before the live one) as a new version. With the two-person
 * rule it is proposed like any change and restored on approval.
 */
export async function proposeRestore(deps: WorkspaceDeps, user: RoutingUser, input: { reason: string; version?: number | undefined }): Promise<RoutingChange> {
  requireEdit(user);
  if (!deps.twoPerson) requireCredential(deps);
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
    return deps.store.transaction(async (tx) => {
      const change = await routingChangesRepo(tx).create(proposal);
      await appendRoutingAudit(tx, {
        event: "proposed",
        actor: userActor(user),
        version: String(live.version),
        reason: input.reason,
        detail: { change_id: change.id, base_version: live.version, restore_version: target },
      });
      return change;
    });
  }
  const restored = await restoreRoutingConfig({ reason: input.reason, author: user.email, version: target, expected_version: live.version }, deps.clients);
  return deps.store.transaction(async (tx) => {
    const change = await routingChangesRepo(tx).create(proposal, { applied_version: restored.version });
    await appendRoutingAudit(tx, {
      event: "restored",
      actor: userActor(user),
      version: String(restored.version),
      reason: input.reason,
      detail: { change_id: change.id, base_version: live.version, restored_from: target },
    });
    return change;
  });
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
  requireCredential(deps);
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
      const superseded = await deps.store.transaction(async (tx) => {
        const marked = await routingChangesRepo(tx).superseded(id, actor, why);
        if (marked) {
          await appendRoutingAudit(tx, {
            event: "superseded",
            actor: userActor(user),
            version: String(change.base_version),
            reason: why,
            detail: { change_id: id, base_version: change.base_version, proposed_by: change.proposed_by.email, live_version: live?.version ?? null },
          });
        }
        return marked;
      });
      throw supersededError(superseded ?? { ...change, status: "superseded", decision_reason: why });
    }
    // Nothing was applied (a refusal or an outage): the change stays pending for another try.
    await repo.release(id, actor);
    throw e;
  }
  return deps.store.transaction(async (tx) => {
    const decided = await routingChangesRepo(tx).applied(id, actor, version.version);
    const base = { actor: userActor(user), version: String(version.version), reason: change.reason };
    const detail = { change_id: id, base_version: change.base_version, proposed_by: change.proposed_by.email, ...(change.restore_version ? { restored_from: change.restore_version } : {}) };
    await appendRoutingAudit(tx, { ...base, event: "approved", detail });
    await appendRoutingAudit(tx, { ...base, event: change.kind === "restore" ? "restored" : "applied", detail });
    // The claim is ours, so the row is still pending; a null here would mean the store lost our write.
    if (!decided) throw new Error(`routing change ${id} was applied as version ${version.version} but could not be marked applied`);
    return decided;
  });
}

/** Rejects a pending change with a reason; any editor may, the proposer too (withdrawing it). */
export async function rejectChange(deps: WorkspaceDeps, user: RoutingUser, id: string, reason: string): Promise<RoutingChange> {
  requireEdit(user);
  await pendingChange(deps, id);
  const actor = { id: user.id, email: user.email };
  return deps.store.transaction(async (tx) => {
    const decided = await routingChangesRepo(tx).rejected(id, actor, reason);
    if (!decided) throw new ApiError(409, "This change was decided by someone else a moment ago; reload to see the outcome");
    await appendRoutingAudit(tx, {
      event: "rejected",
      actor: userActor(user),
      version: String(decided.base_version),
      reason,
      detail: { change_id: id, base_version: decided.base_version, proposed_by: decided.proposed_by.email },
    });
    return decided;
  });
}

// ---------------------------------------------------------------------------------------------
// Measured after

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
