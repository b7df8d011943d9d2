"use client";
/**
 * The /alerts page's body: whether e-mail is on, the alert rules with the form for a new one, and the
 * scheduled reports with the form to subscribe. Lists come from the API (seeded by the server's
 * render) and are fetched again after every change.
 */
import { useState, type ReactNode } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { refreshInbox } from "@/components/notifications/inbox-query";
import { AlertRuleForm } from "./alert-rule-form";
import { AlertRuleList } from "./alert-rule-list";
import { SubscriptionForm } from "./subscription-form";
import { SubscriptionList } from "./subscription-list";
import { useRefetchable } from "./use-refetchable";
import { emptyRuleDraft, emptySubscriptionDraft } from "./drafts";
import type { DeliveryContext } from "./delivery-fields";
import type { AlertVocabulary } from "./rule-words";
import type { AlertsAnswer, CheckedAlerts, CheckedSubscription, DirectoryUser, Programme, SavedChoice, SubscriptionView } from "./answers";

/** As the server's render checked it (./checked.ts), so the first paint needs no schemas. */
export interface AlertsInitial {
  alerts: CheckedAlerts;
  subscriptions: CheckedSubscription[];
  users: DirectoryUser[];
  saved: SavedChoice[];
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : e ? String(e) : null);

export function AlertsManager({
  initial,
  programmes,
  words,
  selfId,
  timeZone,
}: {
  initial: AlertsInitial;
  programmes: Programme[];
  /** The catalog's words the forms and descriptions need, derived by the server's render (./vocabulary.ts). */
  words: AlertVocabulary;
  selfId: string;
  timeZone: string;
}) {
  // Each list is fetched again after a change to it; a refetch checks the stored JSON with the
  // schemas, loaded then (not on the first load). The directory and the saved reports are the
  // server's render's (nothing here changes them).
  const rulesQ = useRefetchable(initial.alerts, async (signal) => {
    const [answer, { checkAlerts }] = await Promise.all([apiFetch<AlertsAnswer>("/api/notifications/alerts", { signal }), import("./checked")]);
    return checkAlerts(answer);
  });
  const subsQ = useRefetchable(initial.subscriptions, async (signal) => {
    const [body, { checkSubscription }] = await Promise.all([apiFetch<{ subscriptions: SubscriptionView[] }>("/api/notifications/subscriptions", { signal }), import("./checked")]);
    return body.subscriptions.map(checkSubscription);
  });
  const [ruleStatus, setRuleStatus] = useState("");
  const [subStatus, setSubStatus] = useState("");
  // A new key after each creation starts the form afresh; a failure keeps everything typed.
  const [ruleFormKey, setRuleFormKey] = useState(0);
  const [subFormKey, setSubFormKey] = useState(0);

  const context: DeliveryContext = { users: initial.users, selfId, timeZone };
  const mail = rulesQ.data.mail;
  const mailOff = mail.startsWith("E-mail is off");

  const rulesChanged = (message: string) => {
    setRuleStatus(message);
    rulesQ.refetch();
    // An evaluation may have told the user: the top bar's count follows.
    void refreshInbox();
  };
  const subsChanged = (message: string) => {
    setSubStatus(message);
    subsQ.refetch();
  };

  return (
    <div className="flex flex-col gap-8">
      <p className={`max-w-4xl rounded-md border px-4 py-3 text-sm ${mailOff ? "border-amber-300 bg-amber-50 text-amber-950" : "border-slate-300 bg-white text-slate-900"}`}>
        {mail}
        {mailOff ? " — alerts and scheduled reports still reach dashboard users in their inbox; other addresses get nothing until it is on." : ""}
      </p>

      <AutomationSection
        id="alert-rules-heading"
        title="Alert rules"
        status={ruleStatus}
        refreshError={rulesQ.error ? `Could not refresh the alert rules: ${messageOf(rulesQ.error)}` : null}
        list={<AlertRuleList rules={rulesQ.data.rules} programmes={programmes} words={words} context={context} onChanged={rulesChanged} />}
        formTitle="New alert rule"
        form={
          <AlertRuleForm
            key={ruleFormKey}
            initial={emptyRuleDraft(selfId, words)}
            programmes={programmes}
            words={words}
            context={context}
            onSaved={(rule) => {
              setRuleFormKey((k) => k + 1);
              rulesChanged(`Alert rule “${rule.name}” created${rule.paused ? " (paused)" : ""}.`);
            }}
          />
        }
      />
      <AutomationSection
        id="subscriptions-heading"
        title="Scheduled reports"
        status={subStatus}
        refreshError={subsQ.error ? `Could not refresh the scheduled reports: ${messageOf(subsQ.error)}` : null}
        list={<SubscriptionList subscriptions={subsQ.data} saved={initial.saved} context={context} onChanged={subsChanged} />}
        formTitle="Subscribe"
        form={
          <SubscriptionForm
            key={subFormKey}
            initial={emptySubscriptionDraft(selfId)}
            saved={initial.saved}
            context={context}
            onSaved={(s) => {
              setSubFormKey((k) => k + 1);
              subsChanged(`Scheduled report of “${s.reportName}” created.`);
            }}
          />
        }
      />
    </div>
  );
}

/** One kind of automation on the page: its heading, what the last change did, its list and the form for a new one. */
function AutomationSection({ id, title, status, refreshError, list, formTitle, form }: { id: string; title: string; status: string; refreshError: string | null; list: ReactNode; formTitle: string; form: ReactNode }) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-3">
      <h2 id={id} className="text-xl font-semibold text-slate-900">
        {title}
      </h2>
      <p role="status" className="min-h-5 text-sm text-slate-900">
        {status}
      </p>
      {refreshError ? (
        <p role="alert" className="text-sm text-red-800">
          {refreshError}
        </p>
      ) : null}
      {list}
      <div className="rounded-md border border-slate-300 bg-white p-4">
        <h3 className="mb-3 text-lg font-semibold text-slate-900">{formTitle}</h3>
        {form}
      </div>
    </section>
  );
}
