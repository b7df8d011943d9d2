"use client";
/**
 * The alert rules: each in words (what it watches, when, to whom, the cool-down, whether paused) with
 * its last evaluations (when, whether late, what fired or recovered with its numbers, or why it could
 * not be evaluated), and Pause/Resume, Edit and Delete.
 */
import { lazy, Suspense, useState } from "react";
import { apiFetch } from "@/lib/report-client/fetch";
import { describeSchedule } from "@/lib/notifications/spec";
import { Button } from "@/components/ui/button";
import { AlertRuleForm } from "./alert-rule-form";
import { ReassignControl, reassignable } from "./reassign";
import {
  describeCooldown,
  describeRecipients,
  describeRule,
  evaluationRecord,
  ruleDraft,
  type AlertVocabulary,
  type CheckedRule,
  type DirectoryUser,
  type Programme,
  pausedLabel,
} from "./model";

// Display only, drawn by the server on first load: their code comes after the page's, and hydrates then.
const Evaluations = lazy(() => import("./evaluations").then((m) => ({ default: m.Evaluations })));
const MailFateView = lazy(() => import("./mail-fate").then((m) => ({ default: m.MailFateView })));

export function AlertRuleList({
  rules,
  programmes,
  words,
  users,
  usersError,
  selfId,
  timeZone,
  onChanged,
}: {
  rules: CheckedRule[];
  programmes: readonly Programme[];
  /** The catalog's words, from the server's render. */
  words: AlertVocabulary;
  users: readonly DirectoryUser[] | undefined;
  usersError: string | null;
  selfId: string;
  timeZone: string;
  onChanged: (message: string) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const act = async (rule: CheckedRule, fn: () => Promise<string>) => {
    setBusy(rule.id);
    setError(null);
    try {
      onChanged(await fn());
    } catch (e) {
      setError(`“${rule.name}”: ${e instanceof Error ? e.message : "the change failed"}`);
    } finally {
      setBusy(null);
    }
  };
  const togglePause = (rule: CheckedRule) =>
    act(rule, async () => {
      await apiFetch(`/api/alerts/${rule.id}`, { method: "PATCH", body: { paused: !rule.paused } });
      return rule.paused ? `“${rule.name}” resumed.` : `“${rule.name}” paused: it is not evaluated until resumed.`;
    });
  const reassign = (rule: CheckedRule, to: string) =>
    act(rule, async () => {
      await apiFetch(`/api/alerts/${rule.id}`, { method: "PATCH", body: { owner_id: to, paused: false } });
      return `“${rule.name}” reassigned to ${users?.find((u) => u.id === to)?.email ?? "its new owner"} and resumed.`;
    });
  const evaluateNow = (rule: CheckedRule) =>
    act(rule, async () => {
      const { evaluation } = await apiFetch<{ evaluation: unknown }>(`/api/alerts/${rule.id}/evaluate`, { method: "POST" });
      const r = evaluationRecord(evaluation);
      if (!r) return `“${rule.name}” is gone.`;
      if (r.error) return `“${rule.name}” could not be evaluated: ${r.error}`;
      const fired = r.notices.filter((n) => n.kind !== "recovered").length;
      const recovered = r.notices.length - fired;
      if (r.notices.length === 0) return `“${rule.name}” evaluated: nothing new to tell.`;
      const told = r.mailWithheld ? `told in the inbox only (${r.mailWithheld})` : "the recipients were told";
      return `“${rule.name}” evaluated: ${[fired ? `${fired} firing` : "", recovered ? `${recovered} recovered` : ""].filter(Boolean).join(", ")}; ${told}.`;
    });
  const remove = (rule: CheckedRule) => {
    if (!window.confirm(`Delete the alert rule “${rule.name}” and its history?`)) return;
    void act(rule, async () => {
      await apiFetch(`/api/alerts/${rule.id}`, { method: "DELETE" });
      return `“${rule.name}” deleted.`;
    });
  };

  if (rules.length === 0) return <p className="text-sm text-slate-700">No alert rules yet. Create one with the form below.</p>;
  return (
    <div className="flex flex-col gap-3">
      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <ul aria-label="Alert rules" className="flex flex-col gap-3">
        {rules.map((rule) => {
          const { definition: def, schedule, recipients } = rule.checked;
          const draft = editing === rule.id ? ruleDraft(rule, words) : null;
          return (
            <li key={rule.id} className={`rounded-md border bg-white p-4 ${rule.paused ? "border-dashed border-slate-400" : "border-slate-300"}`}>
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  <h3 className="text-base font-semibold text-slate-900">
                    {rule.name}{" "}
                    <span className={`ml-1 rounded px-1.5 py-0.5 text-xs font-medium ${rule.paused ? "bg-slate-200 text-slate-900" : "bg-emerald-100 text-emerald-900"}`}>
                      {rule.paused ? pausedLabel(rule.pausedReason) : "Active"}
                    </span>
                  </h3>
                  {rule.ownerId !== selfId ? <p className="text-xs text-slate-700">Owned by {rule.ownerEmail}</p> : null}
                  {rule.paused && reassignable(rule.pausedReason) && rule.ownerId !== selfId ? (
                    <ReassignControl name={`“${rule.name}”`} ownerId={rule.ownerId} users={users} busy={busy === rule.id} onReassign={(to) => void reassign(rule, to)} />
                  ) : null}
                </div>
                <div className="flex flex-wrap gap-2">
                  <Button size="sm" disabled={busy === rule.id} aria-label={`Evaluate ${rule.name} now`} onClick={() => void evaluateNow(rule)}>
                    {busy === rule.id ? "Working…" : "Evaluate now"}
                  </Button>
                  <Button size="sm" disabled={busy === rule.id} aria-label={`${rule.paused ? "Resume" : "Pause"} ${rule.name}`} onClick={() => void togglePause(rule)}>
                    {rule.paused ? "Resume" : "Pause"}
                  </Button>
                  <Button
                    size="sm"
                    disabled={busy === rule.id}
                    aria-expanded={editing === rule.id}
                    aria-label={`Edit ${rule.name}`}
                    onClick={() => setEditing(editing === rule.id ? null : rule.id)}
                  >
                    Edit
                  </Button>
                  <Button size="sm" variant="danger" disabled={busy === rule.id} aria-label={`Delete ${rule.name}`} onClick={() => remove(rule)}>
                    Delete
                  </Button>
                </div>
              </div>
              <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm text-slate-900 sm:grid-cols-[max-content_1fr]">
                <dt className="font-medium">Watches</dt>
                <dd>{def ? describeRule(def, programmes, words) : "This rule’s definition can no longer be read; edit or delete it."}</dd>
                <dt className="font-medium">Schedule</dt>
                <dd>{schedule ? describeSchedule(schedule, timeZone) : "unreadable"}</dd>
                <dt className="font-medium">Recipients</dt>
                <dd className="break-words">
                  {describeRecipients(recipients, users, "nobody else")}
                  {rule.ownerId === selfId ? "; you are always told in the inbox" : `; its owner is always told in the inbox`}
                </dd>
                <dt className="font-medium">Cool-down</dt>
                <dd>{describeCooldown(rule.cooldownMinutes)}</dd>
              </dl>
              <Suspense fallback={null}>
                <Evaluations evaluations={rule.evaluations} timeZone={timeZone} paused={rule.paused} />
                <MailFateView fate={rule} timeZone={timeZone} />
              </Suspense>
              {editing === rule.id ? (
                <div className="mt-4 rounded-md border border-slate-300 bg-slate-50 p-4">
                  <h4 className="mb-3 text-sm font-semibold text-slate-900">Edit “{rule.name}”</h4>
                  {draft ? (
                    <AlertRuleForm
                      initial={draft}
                      ruleId={rule.id}
                      paused={rule.paused}
                      programmes={programmes}
                      words={words}
                      users={users}
                      usersError={usersError}
                      selfId={selfId}
                      timeZone={timeZone}
                      onSaved={(saved) => {
                        setEditing(null);
                        onChanged(`“${saved.name}” saved.`);
                      }}
                      onCancel={() => setEditing(null)}
                    />
                  ) : (
                    <p className="text-sm text-slate-900">This rule’s definition can no longer be read, so it cannot be edited: delete it and create it again.</p>
                  )}
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
