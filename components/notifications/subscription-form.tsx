"use client";
/**
 * Subscribe to a saved report or dashboard (create: which one, schedule, recipients), or change a
 * subscription's schedule and recipients (edit). The server's problems show next to their fields
 * and in an announced summary; nothing chosen is cleared by them.
 */
import { useState, type FormEvent } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { Select, type SelectGroup } from "@/components/ui/select";
import { DeliveryFields, type DeliveryContext } from "./delivery-fields";
import { ErrorSummary, FieldMessages, FormButtons, Hint, ids, useSaving } from "./form-feedback";
import { SUBSCRIPTION_FIELD_LABELS, recipientsInput, scheduleSpec, type SubscriptionDraft } from "./drafts";
import type { SavedChoice, SubscriptionView } from "./answers";

const FORMATS: [string, string][] = [
  ["csv", "CSV (the tables)"],
  ["xlsx", "Excel workbook (the tables)"],
  ["pdf", "PDF (as on screen)"],
];

const PAGE_GROUPS: [SavedChoice["page"], string][] = [
  ["dashboard", "Dashboards"],
  ["explore", "Explore reports"],
  ["cohorts", "Cohort reports"],
];

function reportGroups(saved: readonly SavedChoice[]): SelectGroup[] {
  return PAGE_GROUPS.map(([page, label]) => ({
    label,
    options: saved.filter((r) => r.page === page).map((r) => ({ value: r.id, label: `${r.name} (${r.ownerEmail})` })),
  })).filter((g) => g.options.length > 0);
}

export function SubscriptionForm({
  initial,
  subscriptionId,
  paused,
  saved,
  context,
  onSaved,
  onCancel,
}: {
  initial: SubscriptionDraft;
  /** Editing this subscription (its schedule and recipients); subscribing without. */
  subscriptionId?: string;
  paused?: boolean;
  /** The saved reports and dashboards one can subscribe to, from the server's render. */
  saved: readonly SavedChoice[];
  context: DeliveryContext;
  onSaved: (s: SubscriptionView, created: boolean) => void;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState<SubscriptionDraft>(initial);
  const { id, errors, failure, busy, items, refuse, save, errId, invalid } = useSaving(SUBSCRIPTION_FIELD_LABELS, async (details, sent) => {
    const { errorsByField, subscriptionFieldOf } = await import("./server-errors");
    return errorsByField(details, subscriptionFieldOf, sent);
  });
  const set = (patch: Partial<SubscriptionDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!subscriptionId && !draft.reportId) {
      refuse({ report: ["Choose the report or dashboard to send."] }, null);
      return;
    }
    const recipients = recipientsInput(draft.recipients);
    const schedule = scheduleSpec(draft.schedule);
    const formats = draft.formats;
    const body = subscriptionId ? { schedule, recipients, paused: paused ?? false, formats } : { report_id: draft.reportId, schedule, recipients, formats };
    await save(
      async () => {
        const { subscription } = await apiFetch<{ subscription: SubscriptionView }>(subscriptionId ? `/api/notifications/subscriptions/${subscriptionId}` : "/api/notifications/subscriptions", {
          method: subscriptionId ? "PATCH" : "POST",
          body,
        });
        onSaved(subscription, !subscriptionId);
      },
      { recipients, users: context.users },
      "The subscription could not be saved.",
    );
  };

  const groups = reportGroups(saved);

  return (
    <form noValidate onSubmit={(e) => void submit(e)} aria-label={subscriptionId ? "Edit scheduled report" : "Subscribe"} className="flex flex-col gap-5">
      {failure ? <ErrorSummary title={subscriptionId ? "The changes were not saved." : "The subscription was not created."} message={failure.message} items={items} /> : null}
      {subscriptionId ? null : (
        <div className="flex flex-col gap-1 sm:max-w-lg">
          <label htmlFor={`${id}-report`} className="text-sm font-medium text-slate-900">
            Report or dashboard
          </label>
          <Select
            id={`${id}-report`}
            groups={groups}
            placeholder={groups.length === 0 ? "No saved reports or dashboards yet" : "Choose one…"}
            value={draft.reportId}
            disabled={groups.length === 0}
            aria-invalid={invalid("report")}
            aria-describedby={ids(`${id}-report-hint`, invalid("report") && errId("report"))}
            onChange={(e) => set({ reportId: e.target.value })}
          />
          <Hint id={`${id}-report-hint`}>
            A saved report or dashboard you may open (the Monitor is watched with an alert rule instead). The e-mail carries its numbers and the attachments chosen below; dashboard users get a link
            into the dashboard, other addresses a live share link of its own, which expires like any share link and is revoked with the subscription.
          </Hint>
          <FieldMessages id={errId("report")} messages={errors.report} />
        </div>
      )}
      <DeliveryFields
        idBase={id}
        schedule={draft.schedule}
        recipients={draft.recipients}
        onChange={set}
        allowHourly={false}
        context={context}
        errors={errors}
      />
      <fieldset className="flex flex-col gap-1" aria-describedby={ids(`${id}-formats-hint`, invalid("formats") && errId("formats"))}>
        <legend className="text-sm font-medium text-slate-900">Attach</legend>
        <div className="flex flex-wrap gap-4">
          {FORMATS.map(([format, label]) => (
            <label key={format} className="flex min-h-9 items-center gap-2 text-sm text-slate-900">
              <input
                type="checkbox"
                checked={draft.formats.includes(format)}
                aria-invalid={invalid("formats")}
                onChange={(e) => set({ formats: FORMATS.map(([f]) => f).filter((f) => (f === format ? e.target.checked : draft.formats.includes(f))) })}
              />
              {label}
            </label>
          ))}
        </div>
        <Hint id={`${id}-formats-hint`}>
          The tables as CSV files or as one Excel workbook (a sheet per table, the question on its first sheet); the PDF is the report or dashboard as it looks on screen, made
          when the e-mail is sent. If any file cannot be made, nothing is sent and you are told why in your inbox.
        </Hint>
        <FieldMessages id={errId("formats")} messages={errors.formats} />
      </fieldset>
      <FormButtons busy={busy} submit={subscriptionId ? "Save changes" : "Subscribe"} onCancel={onCancel} />
    </form>
  );
}
