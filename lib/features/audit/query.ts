/**
 * Reading the audit log for admins: the filters of `/audit` and `GET /api/audit` from their URL
 * parameters (dates are calendar days in the reporting time zone), an entry as the page and the API
 * show it, and the CSV of every entry the filters match.
 */
import { ApiError } from "@/lib/contract/errors";
import { addDays, isCalendarDate } from "@/lib/contract/dates";
import { toCsv, type CsvCell } from "@/lib/report/table/csv";
import { formatInstant } from "@/lib/report/metrics/format";
import { AUDIT_PAGE_MAX, auditRepo, type AuditEntry, type AuditFilter } from "@/lib/core/audit/store";
import type { Sql } from "@/lib/core/store/sql";
import { AUDIT_KIND_LABELS, isAuditAction, isAuditKind, type AuditKind } from "@/lib/core/audit/log";

/** The filters as the form holds them (strings, "" for none). */
export interface AuditFormValues {
  kind: string;
  actor: string;
  subject: string;
  from: string;
  to: string;
}

export interface AuditQuery {
  filter: AuditFilter;
  form: AuditFormValues;
  before?: string;
  limit: number;
}

export const AUDIT_PAGE_SIZE = 50;
/** The most rows one CSV holds; past it the export asks for a narrower filter rather than cutting rows off. */
export const AUDIT_CSV_MAX = 100_000;

/** The instant a calendar day begins in `timeZone`. */
export function startOfDayIn(day: string, timeZone: string): Date {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  // The zone's offset at an instant: its wall clock there, read as if it were UTC, minus the instant.
  const offsetAt = (t: number) => {
    const parts = new Intl.DateTimeFormat("en-CA", {
      timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
    }).formatToParts(new Date(t));
    const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    return Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second")) - t;
  };
  // Twice: the offset at the first estimate may differ from the one at midnight across a DST change.
  const first = guess - offsetAt(guess);
  return new Date(guess - offsetAt(first));
}

function text(params: URLSearchParams, name: string, max: number): string {
  const v = (params.get(name) ?? "").trim();
  if (v.length > max) throw ApiError.badRequest(`${name} is at most ${max} characters`, [{ path: name, message: "too long" }]);
  return v;
}

/** The query of `/audit` or `/api/audit`; a 400 that names the parameter for anything it cannot use. */
/** The filters as given, for the form to show again (also when they are refused). */
export function auditFormValues(params: URLSearchParams): AuditFormValues {
  const raw = (name: string, max: number) => (params.get(name) ?? "").trim().slice(0, max);
  return { kind: raw("kind", 60), actor: raw("actor", 320), subject: raw("subject", 200), from: raw("from", 10), to: raw("to", 10) };
}

export function parseAuditQuery(params: URLSearchParams, timeZone: string): AuditQuery {
  const form: AuditFormValues = {
    kind: text(params, "kind", 60),
    actor: text(params, "actor", 320),
    subject: text(params, "subject", 200),
    from: text(params, "from", 10),
    to: text(params, "to", 10),
  };
  const filter: AuditFilter = {};
  if (form.kind !== "") {
    if (isAuditKind(form.kind)) filter.actions = [`${form.kind}.`];
    else if (isAuditAction(form.kind)) filter.actions = [form.kind];
    else throw ApiError.badRequest(`kind "${form.kind}" is no kind of audit entry`, [{ path: "kind", message: "unknown kind" }]);
  }
  if (form.actor !== "") filter.actor = form.actor;
  if (form.subject !== "") filter.subject = form.subject;
  for (const name of ["from", "to"] as const) {
    if (form[name] !== "" && !isCalendarDate(form[name])) throw ApiError.badRequest(`${name} must be a date, YYYY-MM-DD`, [{ path: name, message: "not a date" }]);
  }
  if (form.from !== "" && form.to !== "" && form.to < form.from) throw ApiError.badRequest("to is before from", [{ path: "to", message: "before from" }]);
  if (form.from !== "") filter.from = startOfDayIn(form.from, timeZone);
  // The last day is included: up to the start of the next.
  if (form.to !== "") filter.to = startOfDayIn(addDays(form.to, 1), timeZone);

  const before = params.get("before") ?? undefined;
  if (before !== undefined && !/^\d{1,18}$/.test(before)) throw ApiError.badRequest("before must be an entry id", [{ path: "before", message: "not an id" }]);
  const limitText = params.get("limit");
  const limit = limitText === null ? AUDIT_PAGE_SIZE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) {
    throw ApiError.badRequest(`limit must be a whole number from 1 to ${AUDIT_PAGE_MAX}`, [{ path: "limit", message: "out of range" }]);
  }
  return { filter, form, limit, ...(before !== undefined ? { before } : {}) };
}

/** The filters as URL parameters again (for the next page's link and the CSV's). */
export function auditQueryString(form: AuditFormValues, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...form, ...extra })) if (v !== "") p.set(k, v);
  return p.toString();
}

const ACTION_LABELS: Record<string, string> = {
  "sign_in.succeeded": "Signed in",
  "sign_in.failed": "Sign-in failed",
  "sign_in.refused": "Company sign-in refused",
  "user.created": "User created",
  "user.sso_linked": "Linked to company sign-in",
  "user.disabled": "User disabled",
  "user.enabled": "User enabled",
  "user.role_changed": "Role changed",
  "user.password_reset": "Password reset",
  "share_link.created": "Share link created",
  "share_link.rotated": "Share link rotated",
  "share_link.revoked": "Share link revoked",
  "saved_report.shared": "Shared with the team",
  "saved_report.unshared": "No longer shared with the team",
  "alert_rule.created": "Alert rule created",
  "alert_rule.changed": "Alert rule changed",
  "alert_rule.deleted": "Alert rule deleted",
  "subscription.created": "Scheduled report created",
  "subscription.changed": "Scheduled report changed",
  "subscription.deleted": "Scheduled report deleted",
  "subscription.sent_now": "Scheduled report sent now",
  "routing.proposed": "Routing version proposed",
  "routing.approved": "Routing version approved",
  "routing.applied": "Routing version applied",
  "routing.restored": "Routing version restored",
  "routing.rejected": "Routing change rejected",
  "routing.superseded": "Routing change superseded",
  "routing.withdrawn": "Routing change withdrawn",
};

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

/** The kinds for the filter's options. */
export const AUDIT_KIND_OPTIONS: { value: AuditKind; label: string }[] = Object.entries(AUDIT_KIND_LABELS).map(([value, label]) => ({ value: value as AuditKind, label }));

/** An entry as the page, the API and the CSV show it. */
export interface AuditEntryView {
  id: string;
  at: string;
  /** `at` in the reporting time zone, e.g. "2026-11-22 14:03:05 Europe/Berlin". */
  at_local: string;
  action: string;
  action_label: string;
  actor: string;
  actor_kind: AuditEntry["actorKind"];
  address: string | null;
  subject: string | null;
  /** What changed, as "key: value" pairs. */
  details: string;
  reason: string | null;
}

function detailText(detail: AuditEntry["detail"]): string {
  // A count's sentence first ("31 failed sign-ins for 24 e-mail addresses from …"), then its numbers.
  return Object.entries(detail)
    .sort(([a], [b]) => Number(b === "summary") - Number(a === "summary"))
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${Array.isArray(v) ? v.join(", ") : v === null ? "none" : String(v)}`)
    .join("; ");
}

function actorText(e: AuditEntry): string {
  if (e.actorKind === "cli") return "users CLI";
  if (e.actorKind === "system") return "the dashboard";
  return e.actorEmail ?? "(no e-mail given)";
}

export function auditEntryView(e: AuditEntry, timeZone: string): AuditEntryView {
  const subject = e.subjectKind === null ? null : `${e.subjectKind.replace(/_/g, " ")} ${e.subjectLabel ?? e.subjectId ?? ""}`.trim();
  return {
    id: e.id,
    at: e.at.toISOString(),
    at_local: formatInstant(e.at.toISOString(), timeZone),
    action: e.action,
    action_label: actionLabel(e.action),
    actor: actorText(e),
    actor_kind: e.actorKind,
    address: e.actorAddress,
    subject,
    details: detailText(e.detail),
    reason: e.reason,
  };
}

export interface AuditListing {
  entries: AuditEntryView[];
  next: string | null;
  matching: number;
  /** The oldest entry kept, of all: what the retention has left. */
  oldest: string | null;
  retention_days: number;
}

export async function readAuditLog(db: Sql, query: AuditQuery, timeZone: string, retentionDays: number): Promise<AuditListing> {
  const repo = auditRepo(db);
  const [page, summary] = await Promise.all([
    repo.list(query.filter, { limit: query.limit, ...(query.before !== undefined ? { before: query.before } : {}) }),
    repo.summary(query.filter),
  ]);
  return {
    entries: page.entries.map((e) => auditEntryView(e, timeZone)),
    next: page.next,
    matching: summary.matching,
    oldest: summary.oldest?.toISOString() ?? null,
    retention_days: retentionDays,
  };
}

const CSV_HEADER = ["Time", "Time zone", "Action", "Action code", "Actor", "Actor kind", "Address", "Subject", "Details", "Reason"];

/** Every entry the filters match, newest first (the paging is the CSV's own, not the page's). */
export async function auditCsv(db: Sql, query: AuditQuery, timeZone: string): Promise<string> {
  const repo = auditRepo(db);
  const { matching } = await repo.summary(query.filter);
  if (matching > AUDIT_CSV_MAX) {
    throw ApiError.badRequest(`${matching} entries match; a CSV holds at most ${AUDIT_CSV_MAX}. Narrow the dates or the kind.`, [{ path: "from", message: "too many entries" }]);
  }
  const rows: CsvCell[][] = [CSV_HEADER];
  let before: string | undefined;
  for (;;) {
    const page = await repo.list(query.filter, { limit: AUDIT_PAGE_MAX, ...(before !== undefined ? { before } : {}) });
    for (const e of page.entries) {
      const v = auditEntryView(e, timeZone);
      rows.push([v.at_local.slice(0, 19), timeZone, v.action_label, v.action, v.actor, v.actor_kind, v.address, v.subject, v.details, v.reason]);
    }
    if (page.next === null) break;
    before = page.next;
  }
  return toCsv(rows);
}
