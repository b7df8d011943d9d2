"use client";
/**
 * What became of a rule's or subscription's e-mail: addresses the mail server refused for good and
 * sends that failed or wait for a retry, said first; the latest sends behind a disclosure.
 */
import { formatInstant } from "@/lib/report/metrics/format";
import type { MailStatusJson } from "@/lib/core/mail/model";
import type { MailFate } from "./answers";

function line(m: MailStatusJson, timeZone: string): string {
  if (m.status === "sent") return `Sent to ${m.recipient} at ${formatInstant(m.sentAt ?? m.createdAt, timeZone)}`;
  if (m.status === "failed")
    return `Not delivered to ${m.recipient}: gave up${m.failedAt ? ` at ${formatInstant(m.failedAt, timeZone)}` : ""} after ${m.attempts} attempt${m.attempts === 1 ? "" : "s"}${m.lastError ? ` (${m.lastError})` : ""}`;
  if (m.attempts === 0) return `Sending to ${m.recipient}`;
  return `Waiting to send to ${m.recipient}${m.attempts > 0 ? `: attempt ${m.attempts} failed${m.lastError ? ` (${m.lastError})` : ""}` : ""}${m.nextAttemptAt ? `; next try at ${formatInstant(m.nextAttemptAt, timeZone)}` : ""}`;
}

export function MailFateView({ fate, timeZone }: { fate: MailFate; timeZone: string }) {
  const mail = fate.mail ?? [];
  const bounces = fate.bounces ?? [];
  // A message not yet tried is on its way, not a problem: only a failed try is worth saying first.
  const problems = mail.filter((m) => m.status === "failed" || (m.status !== "sent" && m.attempts > 0));
  const sending = mail.filter((m) => m.status !== "sent" && m.status !== "failed" && m.attempts === 0);
  if (mail.length === 0 && bounces.length === 0) return null;
  return (
    <div className="mt-3 border-t border-slate-200 pt-2 text-sm text-slate-900">
      <h4 className="text-sm font-semibold text-slate-900">E-mail</h4>
      {bounces.length > 0 ? (
        <div className="mt-1 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-red-950">
          <p className="font-medium">Refused for good by the mail server; nothing more is sent to {bounces.length === 1 ? "this address" : "these addresses"}:</p>
          <ul className="list-disc pl-5">
            {bounces.map((b) => (
              <li key={b.address}>
                {b.address}: {b.reason} ({formatInstant(b.at, timeZone)})
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {problems.length > 0 ? (
        <ul className="mt-1 list-disc pl-5">
          {problems.map((m) => (
            <li key={m.id} className={m.status === "failed" ? "text-red-800" : "text-amber-950"}>
              <span className="font-semibold">{m.status === "failed" ? "Failed:" : "Retrying:"}</span> {line(m, timeZone)}
            </li>
          ))}
        </ul>
      ) : null}
      {sending.length > 0 ? (
        <ul className="mt-1 list-disc pl-5" aria-live="polite">
          {sending.map((m) => (
            <li key={m.id}>
              <span className="font-semibold">Sending:</span> {line(m, timeZone)}
            </li>
          ))}
        </ul>
      ) : null}
      {mail.length > 0 ? (
        <details className="mt-1">
          <summary className="cursor-pointer text-blue-800 underline">Latest e-mails ({mail.length})</summary>
          <ul className="mt-1 list-disc pl-5">
            {mail.map((m) => (
              <li key={m.id}>
                <span className="font-medium">{m.subject}</span>: {line(m, timeZone)}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
