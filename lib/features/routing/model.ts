/**
 * The routing workspace as the page and the API see it: a change and its status, the workspace the
 * page reads, and a configuration's dry run with its diff. Types and constants only: the browser
 * imports them, the store (./changes-store.ts) reads its rows into them.
 */
import type { RoutingConfigVersion, RoutingLiveConfig, RoutingValidation } from "@/lib/contract/bin-routing";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import type { ConfigDiff } from "./diff";

export const ROUTING_CHANGE_STATUSES = ["pending", "applied", "rejected", "superseded", "withdrawn"] as const;
export type RoutingChangeStatus = (typeof ROUTING_CHANGE_STATUSES)[number];

export interface RoutingChange {
  id: string;
  /** "change": a configuration of its own; "restore": brings back `restore_version`. */
  kind: "change" | "restore";
  /** The live version the change was reviewed against; applied only while it is still live. */
  base_version: number;
  config: RoutingConfig | null;
  restore_version: number | null;
  reason: string;
  proposed_by: { id: string | null; email: string };
  proposed_at: string;
  status: RoutingChangeStatus;
  decided_by: { id: string | null; email: string } | null;
  decided_at: string | null;
  /** Why it was rejected or withdrawn, or what superseded it. */
  decision_reason: string | null;
  applied_version: number | null;
}

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

export interface ValidateAnswer extends RoutingValidation {
  /** Against the live version; null when the configuration's shape is wrong (see problems) or nothing is live. */
  diff: ConfigDiff | null;
  /** The live version the diff was taken against. */
  live_version: number | null;
}
