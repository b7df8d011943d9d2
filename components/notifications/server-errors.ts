/**
 * The server's 400 details, back onto the alert forms' fields, in words a person can act on.
 * Loaded when a form's submission is refused, not with the page.
 */
import type { Recipients } from "@/lib/features/notifications/definition";
import type { FieldErrors, RuleField, SubscriptionField } from "./drafts";
import type { DirectoryUser } from "./answers";


/** "recipients.emails[2]" and "recipients.users.2" alike, as dot paths. */
const dotted = (path: string) => path.replace(/\[(\d+)\]/g, ".$1");

function recipientMessage(path: string, message: string, sent: Recipients | undefined, users: readonly DirectoryUser[] | undefined): string {
  const m = /^recipients\.(users|emails)\.(\d+)/.exec(path);
  if (!m) return path === "recipients" && message === "empty" ? "Name at least one recipient." : message;
  const i = Number(m[2]);
  if (m[1] === "emails") return `“${sent?.emails[i] ?? `address ${i + 1}`}”: ${message}`;
  const id = sent?.users[i];
  return `${users?.find((u) => u.id === id)?.email ?? id ?? `user ${i + 1}`}: ${message}`;
}

export function ruleFieldOf(path: string): RuleField | null {
  const p = dotted(path);
  if (p === "name") return "name";
  if (p.startsWith("definition.target")) return "target";
  if (p.startsWith("definition.condition")) return "condition";
  if (p.startsWith("definition.group_by")) return "group_by";
  if (p.startsWith("definition.filters")) return "filters";
  if (p.startsWith("definition.window")) return "window";
  if (p.startsWith("schedule")) return "schedule";
  if (p.startsWith("recipients")) return "recipients";
  if (p.startsWith("cooldown_minutes")) return "cooldown";
  return null;
}

export function subscriptionFieldOf(path: string): SubscriptionField | null {
  const p = dotted(path);
  if (p.startsWith("report_id")) return "report";
  if (p.startsWith("schedule")) return "schedule";
  if (p.startsWith("recipients")) return "recipients";
  if (p.startsWith("formats")) return "formats";
  return null;
}

/** Details by field (those of no field under "other"), in words a person can act on. */
export function errorsByField<F extends string>(
  details: readonly { path: string; message: string }[],
  fieldOf: (path: string) => F | null,
  ctx: { sent?: Recipients; users?: readonly DirectoryUser[] },
): { fields: FieldErrors<F>; other: string[] } {
  const fields: FieldErrors<F> = {};
  const other: string[] = [];
  for (const d of details) {
    const f = fieldOf(d.path);
    const p = dotted(d.path);
    const message = p.startsWith("recipients") ? recipientMessage(p, d.message, ctx.sent, ctx.users) : d.message;
    if (f) (fields[f] ??= []).push(message);
    else other.push(`${d.path}: ${d.message}`);
  }
  return { fields, other };
}
