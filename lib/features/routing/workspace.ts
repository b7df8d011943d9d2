import "server-only";
/**
 * The routing workspace (docs/routing.md "Workspace"): what a workspace operation works with (the
 * store, the routing clients, the two-person rule, the user's share of the routing bucket), the
 * live version, and what the page reads: the workspace and a configuration's dry run and diff.
 * Who may do what is ./permissions.ts; a change's life is ./changes.ts; the request bodies are
 * ./requests.ts; the measured effect of applied versions is ./effects-load.ts.
 */
import type { SessionUser } from "@/lib/core/auth/authenticate";
import type { RoutingLiveConfig } from "@/lib/contract/bin-routing";
import { ApiError } from "@/lib/contract/errors";
import { serverEnv } from "@/lib/core/env/env";
import { getStore } from "@/lib/core/store";
import { routingChangesRepo } from "@/lib/features/routing/changes-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import { getRoutingConfig, listRoutingVersions, routingClients, validateRoutingConfig, type RoutingClients } from "./upstream";
import type { UpstreamClient } from "@/lib/core/upstream/client";
import { takeRoutingCall, type RoutingCall } from "@/lib/core/upstream/routing-allowance";
import { approvalRefusal } from "./approval";
import { diffConfigs, normalizeConfig } from "./diff";
import type { RoutingChange, ValidateAnswer, WorkspaceAnswer } from "./model";
import { canEditRouting, readOnlyReason, routingUser, type RoutingUser } from "./permissions";

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

/** The workspace as the routes use it (the `feature` of their `apiRoute`): the process's store, the routing clients and ROUTING_TWO_PERSON, with the user's rights. */
export async function workspaceFor(session: SessionUser): Promise<{ deps: WorkspaceDeps; user: RoutingUser }> {
  const store = await getStore();
  const user = await routingUser(store, session);
  const env = serverEnv();
  return { deps: { store, clients: routingClients(), twoPerson: env.ROUTING_TWO_PERSON, callsPerUser: env.ROUTING_CALLS_PER_USER }, user };
}

/** Counts `call` against the user's share of the routing bucket (lib/core/upstream/routing-allowance.ts); a 429 naming their own use past it. */
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

export const isMissing = (e: unknown) => e instanceof ApiError && e.status === 404;

/** The live version, or null when the service has no configuration loaded. */
export async function liveOrNull(deps: WorkspaceDeps): Promise<RoutingLiveConfig | null> {
  try {
    const live = await getRoutingConfig(deps.clients);
    remember(live.version, live.config);
    return live;
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

export async function requireLive(deps: WorkspaceDeps): Promise<RoutingLiveConfig> {
  const live = await liveOrNull(deps);
  if (!live) throw new ApiError(409, "The routing service has no configuration loaded; load one with `routing load` first");
  return live;
}

// ---------------------------------------------------------------------------------------------
// Reading

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

