"use client";
/**
 * The alert rules: each in words (what it watches, when, to whom, the cool-down, whether paused) with
 * its last evaluations (when, whether late, what fired or recovered with its numbers, or why it could
 * not be evaluated), and Evaluate now, Pause/Resume, Edit and Delete.
 */
import { apiFetch } from "@/lib/core/api-client/fetch";
import { describeSchedule } from "@/lib/features/notifications/spec";
import { Button } from "@/components/ui/button";
import { lazyPart } from "@/components/ui/lazy-part";
import { AlertRuleForm } from "./alert-rule-form";
import { AutomationList, type AutomationKind } from "./automation-list";
import { ruleDraft } from "./drafts";
import { describeCooldown, describeRecipients, describeRule, type AlertVocabulary } from "./rule-words";
import { evaluationRecord, type CheckedRule, type Programme } from "./answers";
import type { DeliveryContext } from "./delivery-fields";

// Display only, drawn by the server on first load: their code comes after the page's, and hydrates then.
const Evaluations = lazyPart(() => import("./evaluations").then((m) => m.Evaluations), null);
const MailFateView = lazyPart(() => import("./mail-fate").then((m) => m.MailFateView), null);

export function AlertRuleList({
  rules,
  programmes,
  words,
  context,
  onChanged,
}: {
  rules: CheckedRule[];
  programmes: readonly Programme[];
  /** The catalog's words, from the server's render. */
  words: AlertVocabulary;
  context: DeliveryContext;
  onChanged: (message: string) => void;
}) {
  const { users, selfId, timeZone } = context;
  const kind: AutomationKind<CheckedRule> = {
    label: "Alert rules",
    empty: "No alert rules yet. Create one with the form below.",
    path: (rule) => `/api/notifications/alerts/${rule.id}`,
    name: (rule) => rule.name,
    title: (rule) => rule.name,
    byline: (rule) => (rule.ownerId !== selfId ? <p className="text-xs text-slate-700">Owned by {rule.ownerEmail}</p> : null),
    reassignName: (rule) => `“${rule.name}”`,
    actions: ({ item: rule, busy, act }) => (
      <Button
        size="sm"
        disabled={busy}
        aria-label={`Evaluate ${rule.name} now`}
        onClick={() =>
          void act(async () => {
            const { evaluation } = await apiFetch<{ evaluation: unknown }>(`/api/notifications/alerts/${rule.id}/evaluate`, { method: "POST" });
            const r = evaluationRecord(evaluation);
            if (!r) return `“${rule.name}” is gone.`;
            if (r.error) return `“${rule.name}” could not be evaluated: ${r.error}`;
            const fired = r.notices.filter((n) => n.kind !== "recovered").length;
            const recovered = r.notices.length - fired;
            if (r.notices.length === 0) return `“${rule.name}” evaluated: nothing new to tell.`;
            const told = r.mailWithheld ? `told in the inbox only (${r.mailWithheld})` : "the recipients were told";
            return `“${rule.name}” evaluated: ${[fired ? `${fired} firing` : "", recovered ? `${recovered} recovered` : ""].filter(Boolean).join(", ")}; ${told}.`;
          })
        }
      >
        {busy ? "Working…" : "Evaluate now"}
      </Button>
    ),
    pauseLabel: (rule) => `${rule.paused ? "Resume" : "Pause"} ${rule.name}`,
    editLabel: (rule) => `Edit ${rule.name}`,
    deleteLabel: (rule) => `Delete ${rule.name}`,
    paused: (rule) => `“${rule.name}” paused: it is not evaluated until resumed.`,
    resumed: (rule) => `“${rule.name}” resumed.`,
    reassigned: (rule, email) => `“${rule.name}” reassigned to ${email} and resumed.`,
    confirmDelete: (rule) => `Delete the alert rule “${rule.name}” and its history?`,
    deleted: (rule) => `“${rule.name}” deleted.`,
    details: ({ checked: { definition: def, schedule, recipients }, ownerId, cooldownMinutes }) => [
      { term: "Watches", description: def ? describeRule(def, programmes, words) : "This rule’s definition can no longer be read; edit or delete it." },
      { term: "Schedule", description: schedule ? describeSchedule(schedule, timeZone) : "unreadable" },
      {
        term: "Recipients",
        wrap: true,
        description: (
          <>
            {describeRecipients(recipients, users, "nobody else")}
            {ownerId === selfId ? "; you are always told in the inbox" : `; its owner is always told in the inbox`}
          </>
        ),
      },
      { term: "Cool-down", description: describeCooldown(cooldownMinutes) },
    ],
    after: (rule) => (
      <>
        <Evaluations evaluations={rule.evaluations} timeZone={timeZone} paused={rule.paused} />
        <MailFateView fate={rule} timeZone={timeZone} />
      </>
    ),
    editTitle: (rule) => `Edit “${rule.name}”`,
    editor: (rule, done, cancel) => {
      const draft = ruleDraft(rule, words);
      return draft ? (
        <AlertRuleForm
          initial={draft}
          ruleId={rule.id}
          paused={rule.paused}
          programmes={programmes}
          words={words}
          context={context}
          onSaved={(saved) => done(`“${saved.name}” saved.`)}
          onCancel={cancel}
        />
      ) : (
        <p className="text-sm text-slate-900">This rule’s definition can no longer be read, so it cannot be edited: delete it and create it again.</p>
      );
    },
  };
  return <AutomationList kind={kind} items={rules} users={users} selfId={selfId} onChanged={onChanged} />;
}
