"use client";
/**
 * Scheduled reports: which report, when, to whom, whether paused; Send now (the next issue at once,
 * the schedule unchanged), Preview (the e-mail it would be, sending nothing), Pause/Resume, Edit and
 * Delete (which revokes its link).
 */
import { lazy, Suspense, useState } from "react";
import { apiFetch } from "@/lib/report-client/fetch";
import { describeSchedule } from "@/lib/notifications/spec";
import { Button } from "@/components/ui/button";
import { SubscriptionForm } from "./subscription-form";
import {
  describeRecipients,
  recipientsDraft,
  reportHref,
  scheduleDraft,
  type DirectoryUser,
  type SavedChoice,
  type CheckedSubscription,
  pausedLabel,
} from "./model";
import { ReassignControl, reassignable } from "./reassign";

const KIND: Record<string, string> = { dashboard: "Dashboard", explore: "Explore report", cohorts: "Cohort report", monitor: "Monitor" };

// Display only, drawn by the server on first load: its code comes after the page's, and hydrates then.
const MailFateView = lazy(() => import("./mail-fate").then((m) => ({ default: m.MailFateView })));
const SubscriptionPreview = lazy(() => import("./subscription-preview").then((m) => ({ default: m.SubscriptionPreview })));

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function SubscriptionList({
  subscriptions,
  saved,
  users,
  usersError,
  selfId,
  timeZone,
  onChanged,
}: {
  subscriptions: CheckedSubscription[];
  saved: readonly SavedChoice[] | undefined;
  users: readonly DirectoryUser[] | undefined;
  usersError: string | null;
  selfId: string;
  timeZone: string;
  onChanged: (message: string) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [previewing, setPreviewing] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const act = async (s: CheckedSubscription, fn: () => Promise<string>) => {
    setBusy(s.id);
    setError(null);
    try {
      onChanged(await fn());
    } catch (e) {
      setError(`“${s.reportName}”: ${e instanceof Error ? e.message : "the change failed"}`);
    } finally {
      setBusy(null);
    }
  };
  const togglePause = (s: CheckedSubscription) =>
    act(s, async () => {
      await apiFetch(`/api/subscriptions/${s.id}`, { method: "PATCH", body: { paused: !s.paused } });
      return s.paused ? `The scheduled report of “${s.reportName}” resumed.` : `The scheduled report of “${s.reportName}” paused: nothing is sent until resumed.`;
    });
  const reassign = (s: CheckedSubscription, to: string) =>
    act(s, async () => {
      await apiFetch(`/api/subscriptions/${s.id}`, { method: "PATCH", body: { owner_id: to, paused: false } });
      return `The scheduled report of “${s.reportName}” reassigned to ${users?.find((u) => u.id === to)?.email ?? "its new owner"} and resumed.`;
    });
  const sendNow = (s: CheckedSubscription) =>
    act(s, async () => {
      const { sent } = await apiFetch<{ sent: { inbox: number; emails: number } }>(`/api/subscriptions/${s.id}/send`, { method: "POST" });
      return `“${s.reportName}” sent now: ${plural(sent.emails, "e-mail", "e-mails")} queued, ${plural(sent.inbox, "inbox message", "inbox messages")}. Its schedule is unchanged.`;
    });
  const remove = (s: CheckedSubscription) => {
    if (!window.confirm(`Stop sending “${s.reportName}”? Its share link is revoked too, so the links in e-mails already sent stop working.`)) return;
    void act(s, async () => {
      await apiFetch(`/api/subscriptions/${s.id}`, { method: "DELETE" });
      return `The scheduled report of “${s.reportName}” deleted, and its link revoked.`;
    });
  };

  if (subscriptions.length === 0) return <p className="text-sm text-slate-700">No scheduled reports yet. Subscribe to a saved report or dashboard with the form below.</p>;
  return (
    <div className="flex flex-col gap-3">
      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <ul aria-label="Scheduled reports" className="flex flex-col gap-3">
        {subscriptions.map((s) => {
          const { schedule, recipients } = s.checked;
          return (
            <li key={s.id} className={`rounded-md border bg-white p-4 ${s.paused ? "border-dashed border-slate-400" : "border-slate-300"}`}>
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  <h3 className="text-base font-semibold text-slate-900">
                    <a className="text-blue-800 underline" href={reportHref(s, saved)}>
                      {s.reportName}
                    </a>{" "}
                    <span className={`ml-1 rounded px-1.5 py-0.5 text-xs font-medium ${s.paused ? "bg-slate-200 text-slate-900" : "bg-emerald-100 text-emerald-900"}`}>
                      {s.paused ? pausedLabel(s.pausedReason) : "Active"}
                    </span>
                  </h3>
                  <p className="text-xs text-slate-700">
                    {KIND[s.reportPage] ?? s.reportPage}
                    {s.ownerId !== selfId ? ` · subscribed by ${s.ownerEmail}` : ""}
                  </p>
                  {s.paused && reassignable(s.pausedReason) && s.ownerId !== selfId ? (
                    <ReassignControl name={`the scheduled report of “${s.reportName}”`} ownerId={s.ownerId} users={users} busy={busy === s.id} onReassign={(to) => void reassign(s, to)} />
                  ) : null}
                </div>
                <div className="flex flex-wrap gap-2">
                  <Button size="sm" disabled={busy === s.id} aria-label={`Send ${s.reportName} now`} onClick={() => void sendNow(s)}>
                    {busy === s.id ? "Working…" : "Send now"}
                  </Button>
                  <Button size="sm" aria-expanded={previewing === s.id} aria-label={`Preview the next e-mail of ${s.reportName}`} onClick={() => setPreviewing(previewing === s.id ? null : s.id)}>
                    Preview
                  </Button>
                  <Button size="sm" disabled={busy === s.id} aria-label={`${s.paused ? "Resume" : "Pause"} the scheduled report of ${s.reportName}`} onClick={() => void togglePause(s)}>
                    {s.paused ? "Resume" : "Pause"}
                  </Button>
                  <Button
                    size="sm"
                    disabled={busy === s.id}
                    aria-expanded={editing === s.id}
                    aria-label={`Edit the schedule and recipients of ${s.reportName}`}
                    onClick={() => setEditing(editing === s.id ? null : s.id)}
                  >
                    Edit
                  </Button>
                  <Button size="sm" variant="danger" disabled={busy === s.id} aria-label={`Delete the scheduled report of ${s.reportName} and revoke its link`} onClick={() => remove(s)}>
                    Delete
                  </Button>
                </div>
              </div>
              <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm text-slate-900 sm:grid-cols-[max-content_1fr]">
                <dt className="font-medium">Schedule</dt>
                <dd>{schedule ? describeSchedule(schedule, timeZone) : "unreadable"}</dd>
                <dt className="font-medium">Recipients</dt>
                <dd className="break-words">{describeRecipients(recipients, users)}</dd>
                <dt className="font-medium">Link</dt>
                <dd>{s.shareLinkId ? "Its own live share link, listed under the report’s share links; deleting this revokes it." : "No share link: its e-mail links into the dashboard, for recipients who may see the report."}</dd>
              </dl>
              <Suspense fallback={null}>
                <MailFateView fate={s} timeZone={timeZone} />
              </Suspense>
              {previewing === s.id ? (
                <Suspense fallback={<p className="mt-3 text-sm text-slate-700">Loading the preview…</p>}>
                  <SubscriptionPreview id={s.id} name={s.reportName} />
                </Suspense>
              ) : null}
              {editing === s.id ? (
                <div className="mt-4 rounded-md border border-slate-300 bg-slate-50 p-4">
                  <h4 className="mb-3 text-sm font-semibold text-slate-900">Edit the scheduled report of “{s.reportName}”</h4>
                  <SubscriptionForm
                    initial={{ reportId: s.reportId, schedule: scheduleDraft(schedule), recipients: recipientsDraft(recipients) }}
                    subscriptionId={s.id}
                    paused={s.paused}
                    saved={saved}
                    savedError={null}
                    users={users}
                    usersError={usersError}
                    selfId={selfId}
                    timeZone={timeZone}
                    onSaved={() => {
                      setEditing(null);
                      onChanged(`The scheduled report of “${s.reportName}” saved.`);
                    }}
                    onCancel={() => setEditing(null)}
                  />
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
