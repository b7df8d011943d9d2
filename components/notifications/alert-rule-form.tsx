"use client";
/**
 * The alert rule form, to create one or edit one: name, what to watch (a metric or KPI of the order
 * summary, or a Monitor programme's ratio), the condition in the measure's own unit, what it is
 * evaluated per, filters, the window, the schedule, recipients and the cool-down. The server's
 * problems show next to their fields and in an announced summary; nothing typed is cleared by them.
 */
import { useState, type FormEvent } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { cn } from "@/components/ui/cn";
import { FilterFields, groupsOf } from "@/components/report/filter-fields";
import { DeliveryFields, type DeliveryContext } from "./delivery-fields";
import { ErrorSummary, FieldMessages, FormButtons, Hint, ids, useSaving } from "./form-feedback";
import { ALERT_WINDOWS, WINDOW_LABELS } from "@/lib/features/notifications/definition";
import { RULE_FIELD_LABELS, draftDefinition, ruleBody, withTarget, type RuleDraft, type RuleField } from "./drafts";
import { parseTarget, ruleSentence, targetFormat, targetGroups, type AlertVocabulary } from "./rule-words";
import type { Programme, RuleView } from "./answers";

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const WINDOW_OPTIONS = ALERT_WINDOWS.map((w) => ({ value: w, label: capital(WINDOW_LABELS[w]) }));
const groupOptions = (words: AlertVocabulary) => [{ label: "Nothing", options: [{ value: "", label: "Nothing: the whole, as one number" }] }, ...groupsOf(words.dimensions, ["date"])];

export function AlertRuleForm({
  initial,
  ruleId,
  paused,
  programmes,
  words,
  context,
  onSaved,
  onCancel,
}: {
  initial: RuleDraft;
  /** Editing this rule (PATCH); creating one without. */
  ruleId?: string;
  /** The edited rule's paused state, sent along so that saving keeps it. */
  paused?: boolean;
  programmes: readonly Programme[];
  /** The catalog's words, from the server's render. */
  words: AlertVocabulary;
  context: DeliveryContext;
  onSaved: (rule: RuleView, created: boolean) => void;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState<RuleDraft>(initial);
  const { id, errors, failure, busy, items: summaryItems, refuse, save, errId, invalid } = useSaving(RULE_FIELD_LABELS, async (details, sent) => {
    const { errorsByField, ruleFieldOf } = await import("./server-errors");
    return errorsByField(details, ruleFieldOf, sent);
  });
  const set = (patch: Partial<RuleDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const target = parseTarget(draft.target);
  const programme = target?.kind === "programme";
  const format = targetFormat(target, words);
  const err = (f: RuleField) => errors[f];

  // The whole rule in words as it is typed, whatever the schedule or the recipients still lack.
  const definition = draftDefinition(draft, words).definition;
  const preview = definition ? ruleSentence(definition, programmes, words) : null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = ruleBody(draft, words);
    if (!r.ok) {
      refuse(r.errors, "Correct the fields below and try again.");
      return;
    }
    const body = ruleId ? { ...r.body, paused: paused ?? false } : r.body;
    await save(
      async () => {
        const { rule } = await apiFetch<{ rule: RuleView }>(ruleId ? `/api/notifications/alerts/${ruleId}` : "/api/notifications/alerts", { method: ruleId ? "PATCH" : "POST", body });
        onSaved({ ...rule, evaluations: rule.evaluations ?? [] }, !ruleId);
      },
      { recipients: r.body.recipients, users: context.users },
      "The rule could not be saved.",
    );
  };

  const unit =
    format === "percent"
      ? { label: "Value, in percent", prefix: null, suffix: "%", hint: "A rate in percent: type 2.5 for 2.5%.", step: "any" }
      : format === "currency"
        ? { label: "Value, in US dollars", prefix: "$", suffix: null, hint: "An amount in dollars, e.g. 1500 or 99.90.", step: "0.01" }
        : { label: "Value, a whole number", prefix: null, suffix: "count", hint: "A count: a whole number, e.g. 25.", step: "1" };

  return (
    <form noValidate onSubmit={(e) => void submit(e)} aria-label={ruleId ? `Edit alert rule ${initial.name}` : "New alert rule"} className="flex flex-col gap-5">
      {failure ? <ErrorSummary title={ruleId ? "The rule was not saved." : "The rule was not created."} message={failure.message} items={summaryItems} /> : null}

      <div className="flex flex-col gap-1 sm:max-w-md">
        <label htmlFor={`${id}-name`} className="text-sm font-medium text-slate-900">
          Name
        </label>
        <input
          id={`${id}-name`}
          className={inputClass}
          value={draft.name}
          maxLength={200}
          autoComplete="off"
          aria-invalid={invalid("name")}
          aria-describedby={ids(invalid("name") && errId("name"))}
          onChange={(e) => set({ name: e.target.value })}
        />
        <FieldMessages id={errId("name")} messages={err("name")} />
      </div>

      <div className="grid gap-4 lg:grid-cols-2">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-target`} className="text-sm font-medium text-slate-900">
            What to watch
          </label>
          <Select
            id={`${id}-target`}
            groups={targetGroups(programmes, words)}
            value={draft.target}
            aria-invalid={invalid("target")}
            aria-describedby={ids(`${id}-target-hint`, invalid("target") && errId("target"))}
            onChange={(e) => {
              const value = e.target.value;
              setDraft((d) => withTarget(d, value, words));
            }}
          />
          <Hint id={`${id}-target-hint`}>A metric or KPI of the order summary (by event date), or a Monitor programme’s ratio per MID and card brand.</Hint>
          <FieldMessages id={errId("target")} messages={err("target")} />
        </div>

        <fieldset className="flex flex-col gap-2" aria-describedby={ids(invalid("condition") && errId("condition"))}>
          <legend className="text-sm font-medium text-slate-900">Condition</legend>
          <div className="flex flex-wrap items-end gap-3">
            <div className="flex flex-col gap-1">
              <label htmlFor={`${id}-kind`} className="text-sm text-slate-900">
                Fires when it is
              </label>
              <Select
                id={`${id}-kind`}
                className="w-52"
                value={draft.condition}
                options={[
                  { value: "above", label: "above a value" },
                  { value: "below", label: "below a value" },
                  { value: "change", label: "changed on the previous period" },
                ]}
                onChange={(e) => set({ condition: e.target.value as RuleDraft["condition"], conditionChosen: true })}
              />
            </div>
            {draft.condition !== "change" ? (
              <div className="flex flex-col gap-1">
                <label htmlFor={`${id}-threshold`} className="text-sm text-slate-900">
                  {unit.label}
                </label>
                <div className="flex items-center gap-1.5">
                  {unit.prefix ? (
                    <span aria-hidden="true" className="text-sm text-slate-900">
                      {unit.prefix}
                    </span>
                  ) : null}
                  <input
                    id={`${id}-threshold`}
                    type="number"
                    inputMode="decimal"
                    step={unit.step}
                    className={cn(inputClass, "w-36")}
                    value={draft.threshold}
                    aria-invalid={invalid("condition")}
                    aria-describedby={ids(`${id}-threshold-hint`, invalid("condition") && errId("condition"))}
                    onChange={(e) => set({ threshold: e.target.value })}
                  />
                  {unit.suffix ? (
                    <span aria-hidden="true" className="text-sm text-slate-900">
                      {unit.suffix}
                    </span>
                  ) : null}
                </div>
              </div>
            ) : (
              <>
                <div className="flex flex-col gap-1">
                  <label htmlFor={`${id}-direction`} className="text-sm text-slate-900">
                    Direction
                  </label>
                  <Select
                    id={`${id}-direction`}
                    className="w-36"
                    value={draft.direction}
                    options={[
                      { value: "up", label: "up" },
                      { value: "down", label: "down" },
                      { value: "either", label: "up or down" },
                    ]}
                    onChange={(e) => set({ direction: e.target.value as RuleDraft["direction"], conditionChosen: true })}
                  />
                </div>
                <div className="flex flex-col gap-1">
                  <label htmlFor={`${id}-amount`} className="text-sm text-slate-900">
                    By more than
                  </label>
                  <input
                    id={`${id}-amount`}
                    type="number"
                    inputMode="decimal"
                    min={0}
                    step="any"
                    className={cn(inputClass, "w-28")}
                    value={draft.amount}
                    aria-invalid={invalid("condition")}
                    aria-describedby={ids(`${id}-threshold-hint`, invalid("condition") && errId("condition"))}
                    onChange={(e) => set({ amount: e.target.value })}
                  />
                </div>
                <div className="flex flex-col gap-1">
                  <label htmlFor={`${id}-by`} className="text-sm text-slate-900">
                    Measured in
                  </label>
                  <Select
                    id={`${id}-by`}
                    className="w-56"
                    value={format === "percent" ? draft.by : "percent"}
                    options={[
                      { value: "percent", label: "% of the previous value" },
                      { value: "points", label: "percentage points", disabled: format !== "percent" },
                    ]}
                    onChange={(e) => set({ by: e.target.value as RuleDraft["by"], conditionChosen: true })}
                  />
                </div>
              </>
            )}
          </div>
          <Hint id={`${id}-threshold-hint`}>
            {draft.condition === "change"
              ? `Compared with the previous period of the same length.${format === "percent" ? " Points compare the rates themselves: 2 points is 3.0% → 5.0%." : " Percentage points are only for rates."}`
              : unit.hint}
          </Hint>
          <FieldMessages id={errId("condition")} messages={err("condition")} />
        </fieldset>

        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-group`} className="text-sm font-medium text-slate-900">
            Evaluated per
          </label>
          <Select
            id={`${id}-group`}
            groups={groupOptions(words)}
            value={programme ? "" : draft.groupBy}
            disabled={programme}
            aria-invalid={invalid("group_by")}
            aria-describedby={ids(`${id}-group-hint`, invalid("group_by") && errId("group_by"))}
            onChange={(e) => set({ groupBy: e.target.value })}
          />
          <Hint id={`${id}-group-hint`}>
            {programme ? "A programme ratio is always evaluated per MID and card brand." : "One check per value of this dimension (each told separately), or the whole as one."}
          </Hint>
          <FieldMessages id={errId("group_by")} messages={err("group_by")} />
        </div>

        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-window`} className="text-sm font-medium text-slate-900">
            Window
          </label>
          <Select
            id={`${id}-window`}
            options={WINDOW_OPTIONS}
            value={programme ? "mtd" : draft.window}
            disabled={programme}
            aria-invalid={invalid("window")}
            aria-describedby={ids(`${id}-window-hint`, invalid("window") && errId("window"))}
            onChange={(e) => set({ window: e.target.value as RuleDraft["window"] })}
          />
          <Hint id={`${id}-window-hint`}>
            {programme ? "A programme ratio is monthly: it is always the month to date." : `The days it looks at when it runs, in the reporting time zone (${context.timeZone}).`}
          </Hint>
          <FieldMessages id={errId("window")} messages={err("window")} />
        </div>
      </div>

      <div className="flex flex-col gap-1">
        {programme ? (
          <>
            <p className="text-sm font-medium text-slate-900">Filters</p>
            <Hint>A programme ratio takes no filters: it counts what the programme counts.</Hint>
          </>
        ) : (
          <FilterFields dimensions={words.dimensions} value={draft.filters} onChange={(filters) => set({ filters })} />
        )}
        <FieldMessages id={errId("filters")} messages={err("filters")} />
      </div>

      <DeliveryFields
        idBase={id}
        schedule={draft.schedule}
        recipients={draft.recipients}
        onChange={set}
        allowHourly
        context={context}
        errors={errors}
        note="The rule’s owner is always told in the inbox."
      />

      <div className="flex flex-col gap-1 sm:max-w-xs">
        <label htmlFor={`${id}-cooldown`} className="text-sm font-medium text-slate-900">
          Cool-down (minutes)
        </label>
        <input
          id={`${id}-cooldown`}
          type="number"
          min={0}
          max={10080}
          step={1}
          className={inputClass}
          value={draft.cooldown}
          aria-invalid={invalid("cooldown")}
          aria-describedby={ids(`${id}-cooldown-hint`, invalid("cooldown") && errId("cooldown"))}
          onChange={(e) => set({ cooldown: e.target.value })}
        />
        <Hint id={`${id}-cooldown-hint`}>A group that keeps firing is told again only after this long (240 = 4 hours); a recovery is always told.</Hint>
        <FieldMessages id={errId("cooldown")} messages={err("cooldown")} />
      </div>

      <p className="text-sm text-slate-900">{preview ?? "Fill in the condition to see the rule in words."}</p>

      <FormButtons busy={busy} submit={ruleId ? "Save changes" : "Create alert rule"} onCancel={onCancel} />
    </form>
  );
}
