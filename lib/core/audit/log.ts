/**
 * The audit log's one entry point: what may be recorded (the actions), who did it (the actor, as
 * they were at the time) and `appendAudit`, which each change calls with the transaction that makes
 * the change, so an entry exists exactly when its change does.
 *
 * Entries say what changed, never a secret: no password, token, hash or request body. The detail
 * takes only short scalar values and the writer picks them field by field.
 */
import { auditRepo, type AuditActorKind, type AuditDetailValue, type AuditEntry } from "@/lib/core/audit/store";
import type { Sql, Store } from "@/lib/core/store/sql";

export const AUDIT_ACTIONS = [
  "sign_in.succeeded",
  "sign_in.failed",
  "sign_in.refused",
  "user.created",
  "user.sso_linked",
  "user.disabled",
  "user.enabled",
  "user.role_changed",
  "user.password_reset",
  "share_link.created",
  "share_link.rotated",
  "share_link.revoked",
  "saved_report.shared",
  "saved_report.unshared",
  "alert_rule.created",
  "alert_rule.changed",
  "alert_rule.deleted",
  "subscription.created",
  "subscription.changed",
  "subscription.deleted",
  "subscription.sent_now",
  "routing.proposed",
  "routing.approved",
  "routing.applied",
  "routing.restored",
  "routing.rejected",
  "routing.superseded",
  "routing.withdrawn",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The kinds the page filters by: the part of an action before the dot. */
export const AUDIT_KINDS = ["sign_in", "user", "share_link", "saved_report", "alert_rule", "subscription", "routing"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export const AUDIT_KIND_LABELS: Record<AuditKind, string> = {
  sign_in: "Sign-ins",
  user: "Users",
  share_link: "Share links",
  saved_report: "Team sharing",
  alert_rule: "Alert rules",
  subscription: "Scheduled reports",
  routing: "Routing",
};

export function isAuditAction(s: string): s is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(s);
}

export function isAuditKind(s: string): s is AuditKind {
  return (AUDIT_KINDS as readonly string[]).includes(s);
}

/** Who acted: a signed-in user, someone who failed to sign in, the users CLI, or the dashboard itself. */
export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  /** The user's e-mail then, or the e-mail typed at a failed sign-in. */
  email: string | null;
  /** The client's address as the sign-in throttle reads it (TRUSTED_PROXY_HOPS); undefined: the current request's. */
  address?: string | null;
}

/** A signed-in user as actor; the address defaults to the current request's. */
export function userActor(user: { id: string; email: string; address?: string | null }): AuditActor {
  return { kind: "user", id: user.id, email: user.email, ...(user.address !== undefined ? { address: user.address } : {}) };
}

export interface AuditSubject {
  kind: string;
  id: string;
  /** What a reader recognises it by: an e-mail, a report's name, a link's label. */
  label?: string | null;
}

export interface AuditWrite {
  action: AuditAction;
  actor: AuditActor;
  subject?: AuditSubject | null;
  /** What changed: field → value (before/after as `from_x`/`x` where it helps). */
  detail?: Record<string, AuditDetailValue>;
  /** The reason the actor gave, where one was asked for. */
  reason?: string | null;
  at?: Date;
}

const MAX_TEXT = 400;

function clip(s: string | null | undefined, max: number): string | null {
  if (s === null || s === undefined) return null;
  return s.length > max ? s.slice(0, max) : s;
}

function clipDetail(detail: Record<string, AuditDetailValue>): Record<string, AuditDetailValue> {
  const out: Record<string, AuditDetailValue> = {};
  for (const [k, v] of Object.entries(detail)) {
    out[k] = typeof v === "string" ? clip(v, MAX_TEXT) : Array.isArray(v) ? v.slice(0, 50).map((x) => clip(x, MAX_TEXT) ?? "") : v;
  }
  return out;
}

/**
 * The address of the request being served, read from its headers as the sign-in throttle reads it;
 * null outside a request (the CLI, the scheduler, tests).
 */
async function currentRequestAddress(): Promise<string | null> {
  try {
    const [{ headers }, { clientAddress }, { parseServerEnv }] = await Promise.all([
      import("next/headers"),
      import("@/lib/core/http/client-address"),
      import("@/lib/core/env/env-schema"),
    ]);
    const h = await headers();
    return clientAddress(h, parseServerEnv(process.env).TRUSTED_PROXY_HOPS);
  } catch {
    return null;
  }
}

/** Records one entry with `db`: the transaction that makes the change it records. */
export async function appendAudit(db: Sql, write: AuditWrite): Promise<AuditEntry> {
  const address = write.actor.address !== undefined ? write.actor.address : await currentRequestAddress();
  return auditRepo(db).append({
    action: write.action,
    actorKind: write.actor.kind,
    actorId: write.actor.id,
    actorEmail: clip(write.actor.email, 320),
    actorAddress: clip(address, 100),
    subjectKind: write.subject?.kind ?? null,
    subjectId: clip(write.subject?.id, 200),
    subjectLabel: clip(write.subject?.label, MAX_TEXT),
    detail: clipDetail(write.detail ?? {}),
    reason: clip(write.reason?.trim() || null, 2000),
    ...(write.at ? { at: write.at } : {}),
  });
}

/** `fn` in one transaction: a new one on a store, or the caller's when `db` already is one. */
export async function inTransaction<R>(db: Sql | Store, fn: (tx: Sql) => Promise<R>): Promise<R> {
  return "transaction" in db && typeof db.transaction === "function" ? db.transaction(fn) : fn(db);
}

/** The fields a patch sets, for an entry's detail (names only: values may be long or personal). */
export function changedFields(patch: object): string[] {
  return Object.entries(patch)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();
}

export type RoutingEvent = "proposed" | "approved" | "applied" | "restored" | "rejected" | "superseded" | "withdrawn";

/**
 * The routing workspace's entry: a routing configuration version proposed, approved, applied,
 * restored or rejected, by whom and why. Written with the transaction that records the step (the dashboard's
 * record of the version), after the service accepted it where the step changes live routing. A
 * step without a reason is refused: every routing change says why.
 */
export async function appendRoutingAudit(
  db: Sql,
  step: { event: RoutingEvent; actor: AuditActor; version: string; reason: string; detail?: Record<string, AuditDetailValue> },
): Promise<AuditEntry> {
  if (step.reason.trim() === "") throw new Error(`a routing version ${step.event} needs a reason`);
  return appendAudit(db, {
    action: `routing.${step.event}`,
    actor: step.actor,
    subject: { kind: "routing_version", id: step.version, label: `version ${step.version}` },
    reason: step.reason,
    ...(step.detail ? { detail: step.detail } : {}),
  });
}
