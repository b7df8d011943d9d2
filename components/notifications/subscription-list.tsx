"use client";
/**
 * Scheduled reports: which report, when, to whom, whether paused; Send now (the next issue at once,
 * the schedule unchanged), Preview (the e-mail it would be, sending nothing), Pause/Resume, Edit and
 * Delete (which revokes its link).
 */
import { useState } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { describeSchedule } from "@/lib/features/notifications/spec";
import { Button } from "@/components/ui/button";
import { lazyPart } from "@/components/ui/lazy-part";
import { AutomationList, type AutomationKind } from "./automation-list";
import { SubscriptionForm } from "./subscription-form";
import { recipientsDraft, scheduleDraft } from "./drafts";
import { describeRecipients } from "./rule-words";
import { reportHref, type SavedChoice, type CheckedSubscription } from "./answers";
import type { DeliveryContext } from "./delivery-fields";

const KIND: Record<string, string> = { dashboard: "Dashboard", explore: "Explore report", cohorts: "Cohort report", monitor: "Monitor" };

// Display only, drawn by the server on first load: its code comes after the page's, and hydrates then.
const MailFateView = lazyPart(() => import("./mail-fate").then((m) => m.MailFateView), null);
// The preview, loaded when it is first asked for.
const SubscriptionPreview = lazyPart(
  () => import("./subscription-preview").then((m) => m.SubscriptionPreview),
  <p className="mt-3 text-sm text-slate-700">Loading the preview…</p>,
);

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function SubscriptionList({
  subscriptions,
  saved,
  context,
  onChanged,
}: {
  subscriptions: CheckedSubscription[];
  saved: readonly SavedChoice[];
  context: DeliveryContext;
  onChanged: (message: string) => void;
}) {
  const { users, selfId, timeZone } = context;
  const [previewing, setPreviewing] = useState<string | null>(null);
  const kind: AutomationKind<CheckedSubscription> = {
    label: "Scheduled reports",
    empty: "No scheduled reports yet. Subscribe to a saved report or dashboard with the form below.",
    path: (s) => `/api/notifications/subscriptions/${s.id}`,
    name: (s) => s.reportName,
    title: (s) => (
      <a className="text-blue-800 underline" href={reportHref(s, saved)}>
        {s.reportName}
      </a>
    ),
    byline: (s) => (
      <p className="text-xs text-slate-700">
        {KIND[s.reportPage] ?? s.reportPage}
        {s.ownerId !== selfId ? ` · subscribed by ${s.ownerEmail}` : ""}
      </p>
    ),
    reassignName: (s) => `the scheduled report of “${s.reportName}”`,
    actions: ({ item: s, busy, act }) => (
      <>
        <Button
          size="sm"
          disabled={busy}
          aria-label={`Send ${s.reportName} now`}
          onClick={() =>
            void act(async () => {
              const { sent } = await apiFetch<{ sent: { inbox: number; emails: number } }>(`/api/notifications/subscriptions/${s.id}/send`, { method: "POST" });
              return `“${s.reportName}” sent now: ${plural(sent.emails, "e-mail", "e-mails")} queued, ${plural(sent.inbox, "inbox message", "inbox messages")}. Its schedule is unchanged.`;
            })
          }
        >
          {busy ? "Working…" : "Send now"}
        </Button>
        <Button size="sm" aria-expanded={previewing === s.id} aria-label={`Preview the next e-mail of ${s.reportName}`} onClick={() => setPreviewing(previewing === s.id ? null : s.id)}>
          Preview
        </Button>
      </>
    ),
    pauseLabel: (s) => `${s.paused ? "Resume" : "Pause"} the scheduled report of ${s.reportName}`,
    editLabel: (s) => `Edit the schedule and recipients of ${s.reportName}`,
    deleteLabel: (s) => `Delete the scheduled report of ${s.reportName} and revoke its link`,
    paused: (s) => `The scheduled report of “${s.reportName}” paused: nothing is sent until resumed.`,
    resumed: (s) => `The scheduled report of “${s.reportName}” resumed.`,
    reassigned: (s, email) => `The scheduled report of “${s.reportName}” reassigned to ${email} and resumed.`,
    confirmDelete: (s) => `Stop sending “${s.reportName}”? Its share link is revoked too, so the links in e-mails already sent stop working.`,
    deleted: (s) => `The scheduled report of “${s.reportName}” deleted, and its link revoked.`,
    details: ({ checked: { schedule, recipients }, shareLinkId }) => [
      { term: "Schedule", description: schedule ? describeSchedule(schedule, timeZone) : "unreadable" },
      { term: "Recipients", wrap: true, description: describeRecipients(recipients, users) },
      {
        term: "Link",
        description: shareLinkId
          ? "Its own live share link, listed under the report’s share links; deleting this revokes it."
          : "No share link: its e-mail links into the dashboard, for recipients who may see the report.",
      },
    ],
    after: (s) => (
      <>
        <MailFateView fate={s} timeZone={timeZone} />
        {previewing === s.id ? <SubscriptionPreview id={s.id} name={s.reportName} /> : null}
      </>
    ),
    editTitle: (s) => `Edit the scheduled report of “${s.reportName}”`,
    editor: (s, done, cancel) => (
      <SubscriptionForm
        initial={{ reportId: s.reportId, schedule: scheduleDraft(s.checked.schedule), recipients: recipientsDraft(s.checked.recipients), formats: s.formats }}
        subscriptionId={s.id}
        paused={s.paused}
        saved={saved}
        context={context}
        onSaved={() => done(`The scheduled report of “${s.reportName}” saved.`)}
        onCancel={cancel}
      />
    ),
  };
  return <AutomationList kind={kind} items={subscriptions} users={users} selfId={selfId} onChanged={onChanged} />;
}
