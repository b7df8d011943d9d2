"use client";
/**
 * The configuration editor: the groups and the rules as form tables, each field with the problem the
 * validate endpoint names at its path (the service's own checks), add and remove members, groups and
 * rules. Edits go through lib/features/routing/editor.ts; this only draws them.
 */
import { useId, useState } from "react";
import { SCOPE_NAMES, CYCLE_SCOPES, type CycleScope } from "@/lib/contract/routing-config";
import { SELECTION_METHODS, type SelectionMethod } from "@/lib/contract/routing-values";
import {
  addGroup,
  addMember,
  addRule,
  problemsAt,
  problemsElsewhere,
  removeGroup,
  removeMember,
  removeRule,
  setFallback,
  updateGroup,
  updateMember,
  updateRule,
  type PathProblem,
  type RoutingConfig,
} from "@/lib/features/routing/editor";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { inputClass } from "@/components/ui/field";
import { ScrollTable } from "./live-tables";

const th = "px-2 py-2 text-left font-medium whitespace-nowrap";
const td = "px-2 py-1.5 align-top";
const small = cn(inputClass, "min-h-8 py-1");

/** A whole number typed in a field; anything else stays NaN so the service's check names the field. */
const toInt = (s: string) => (/^\s*\d+\s*$/.test(s) ? Number(s) : Number.NaN);
const intText = (n: number) => (Number.isFinite(n) ? String(n) : "");

/** The messages under a control, tied to it by id. */
function Problems({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <p id={id} className="mt-0.5 text-xs font-medium text-red-700">
      {messages.join("; ")}
    </p>
  );
}

/** aria props of a control with problems at `path`. */
function useField(problems: readonly PathProblem[], base: string) {
  return (path: string) => {
    const messages = problemsAt(problems, path);
    const errId = `${base}-${path.replace(/[^a-z0-9]/gi, "-")}-err`;
    return {
      messages,
      errId,
      aria: messages.length > 0 ? { "aria-invalid": true as const, "aria-describedby": errId } : {},
    };
  };
}

export function ConfigEditor({ config, problems, onChange }: { config: RoutingConfig; problems: readonly PathProblem[]; onChange: (c: RoutingConfig) => void }) {
  const base = useId();
  const field = useField(problems, base);
  const [newMember, setNewMember] = useState<Record<number, string>>({});
  const elsewhere = problemsElsewhere(problems, config);
  const groupOptions = config.groups.map((g) => ({ value: String(g.group_id), label: `${g.group_name} (#${g.group_id})` }));

  return (
    <div className="flex flex-col gap-4" data-testid="routing-editor">
      {elsewhere.length > 0 ? (
        <ul className="list-disc rounded-md border border-red-300 bg-red-50 py-2 pr-3 pl-7 text-sm text-red-900" aria-label="Problems with the configuration as a whole">
          {elsewhere.map((p) => (
            <li key={`${p.path}:${p.message}`}>
              <code className="text-xs">{p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      ) : null}

      <section aria-labelledby={`${base}-groups`} className="flex flex-col gap-2">
        <h4 id={`${base}-groups`} className="font-medium">
          Groups
        </h4>
        {config.groups.map((g, gi) => {
          const name = field(`groups[${gi}].group_name`);
          const method = field(`groups[${gi}].selection_method`);
          const scope = field(`groups[${gi}].cycle_scope`);
          const fallback = field(`groups[${gi}].is_fallback`);
          const members = field(`groups[${gi}].members`);
          const adding = newMember[g.group_id] ?? "";
          const addId = `${base}-g${gi}-add`;
          return (
            <fieldset key={`${gi}-${g.group_id}`} className="rounded-md border border-slate-300 bg-white p-3" data-group-index={gi}>
              <legend className="px-1 text-sm font-medium">
                Group #{g.group_id}
                {g.is_fallback ? " (fallback)" : ""}
              </legend>
              <div className="grid gap-2 sm:grid-cols-4">
                <label className="flex flex-col gap-1 text-sm">
                  Name
                  <input className={small} value={g.group_name} onChange={(e) => onChange(updateGroup(config, gi, { group_name: e.target.value }))} {...name.aria} />
                  <Problems id={name.errId} messages={name.messages} />
                </label>
                <label className="flex flex-col gap-1 text-sm">
                  Method
                  <select
                    className={small}
                    value={g.selection_method}
                    onChange={(e) => onChange(updateGroup(config, gi, { selection_method: e.target.value as SelectionMethod }))}
                    {...method.aria}
                  >
                    {SELECTION_METHODS.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                  <Problems id={method.errId} messages={method.messages} />
                </label>
                <label className="flex flex-col gap-1 text-sm">
                  Scope
                  <select
                    className={small}
                    value={String(g.cycle_scope)}
                    onChange={(e) => onChange(updateGroup(config, gi, { cycle_scope: Number(e.target.value) as CycleScope }))}
                    {...scope.aria}
                  >
                    {CYCLE_SCOPES.map((s) => (
                      <option key={s} value={s}>
                        {SCOPE_NAMES[s]}
                      </option>
                    ))}
                  </select>
                  <Problems id={scope.errId} messages={scope.messages} />
                </label>
                <div className="flex flex-col justify-end gap-1 text-sm">
                  <label className="flex min-h-8 items-center gap-2">
                    <input type="radio" name={`${base}-fallback`} checked={g.is_fallback} onChange={() => onChange(setFallback(config, gi))} {...fallback.aria} />
                    Fallback group
                  </label>
                  <Problems id={fallback.errId} messages={fallback.messages} />
                </div>
              </div>
              <ScrollTable label={`Members of group #${g.group_id}`}>
                <table className="mt-2 w-full text-sm" aria-label={`Members of group #${g.group_id}`}>
                  <thead className="bg-slate-50">
                    <tr>
                      <th scope="col" className={th}>MID</th>
                      <th scope="col" className={th}>Weight</th>
                      <th scope="col" className={th}>Active</th>
                      <th scope="col" className={th}>
                        <span className="sr-only">Remove</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {g.members.map((m, mi) => {
                      const gw = field(`groups[${gi}].members[${mi}].gateway_id`);
                      const w = field(`groups[${gi}].members[${mi}].weight`);
                      return (
                        <tr key={mi} className="border-t border-slate-100">
                          <td className={td}>
                            <input
                              className={cn(small, "w-24")}
                              inputMode="numeric"
                              aria-label={`MID of member ${mi + 1} of group #${g.group_id}`}
                              value={intText(m.gateway_id)}
                              onChange={(e) => onChange(updateMember(config, gi, mi, { gateway_id: toInt(e.target.value) }))}
                              {...gw.aria}
                            />
                            <Problems id={gw.errId} messages={gw.messages} />
                          </td>
                          <td className={td}>
                            <input
                              className={cn(small, "w-24")}
                              inputMode="numeric"
                              aria-label={`Weight of MID ${m.gateway_id} in group #${g.group_id}`}
                              value={intText(m.weight)}
                              onChange={(e) => onChange(updateMember(config, gi, mi, { weight: toInt(e.target.value) }))}
                              {...w.aria}
                            />
                            <Problems id={w.errId} messages={w.messages} />
                          </td>
                          <td className={td}>
                            <input
                              type="checkbox"
                              className="mt-2"
                              aria-label={`MID ${m.gateway_id} active in group #${g.group_id}`}
                              checked={m.active}
                              onChange={(e) => onChange(updateMember(config, gi, mi, { active: e.target.checked }))}
                            />
                          </td>
                          <td className={td}>
                            <Button size="sm" variant="ghost" aria-label={`Remove MID ${m.gateway_id} from group #${g.group_id}`} onClick={() => onChange(removeMember(config, gi, mi))}>
                              Remove
                            </Button>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </ScrollTable>
              <Problems id={members.errId} messages={members.messages} />
              <div className="mt-2 flex flex-wrap items-end gap-2">
                <label htmlFor={addId} className="text-sm">
                  Add MID
                </label>
                <input
                  id={addId}
                  className={cn(small, "w-24")}
                  inputMode="numeric"
                  value={adding}
                  onChange={(e) => setNewMember({ ...newMember, [g.group_id]: e.target.value })}
                />
                <Button
                  size="sm"
                  disabled={!Number.isFinite(toInt(adding))}
                  onClick={() => {
                    onChange(addMember(config, gi, toInt(adding)));
                    setNewMember({ ...newMember, [g.group_id]: "" });
                  }}
                >
                  Add member
                </Button>
                {!g.is_fallback ? (
                  <Button size="sm" variant="danger" className="ml-auto" onClick={() => onChange(removeGroup(config, gi))}>
                    Remove group #{g.group_id}
                  </Button>
                ) : null}
              </div>
            </fieldset>
          );
        })}
        <div>
          <Button size="sm" onClick={() => onChange(addGroup(config, config.groups[0]?.members[0]?.gateway_id ?? 1).config)}>
            Add group
          </Button>
        </div>
      </section>

      <section aria-labelledby={`${base}-rules`} className="flex flex-col gap-2">
        <h4 id={`${base}-rules`} className="font-medium">
          Rules
        </h4>
        <ScrollTable label="Rules being edited">
          <table className="w-full text-sm" aria-label="Rules being edited">
            <thead className="bg-slate-100">
              <tr>
                <th scope="col" className={th}>Type</th>
                <th scope="col" className={th}>BIN prefix / bank</th>
                <th scope="col" className={th}>Name</th>
                <th scope="col" className={th}>Group</th>
                <th scope="col" className={th}>Enabled</th>
                <th scope="col" className={th}>
                  <span className="sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {config.rules.map((r, ri) => {
                const key = r.type === "BIN" ? "bin_prefix" : "bank";
                const cond = field(`rules[${ri}].${key}`);
                const name = field(`rules[${ri}].rule_name`);
                const group = field(`rules[${ri}].group_id`);
                const label = r.rule_name || `rule ${ri + 1}`;
                return (
                  <tr key={ri} className="border-t border-slate-200" data-rule-index={ri}>
                    <td className={cn(td, "pt-3 whitespace-nowrap")}>{r.type}</td>
                    <td className={td}>
                      <input
                        className={cn(small, "min-w-28")}
                        inputMode={r.type === "BIN" ? "numeric" : "text"}
                        aria-label={r.type === "BIN" ? `BIN prefix of ${label}` : `Bank of ${label}`}
                        value={r.type === "BIN" ? r.bin_prefix : r.bank}
                        onChange={(e) => onChange(updateRule(config, ri, r.type === "BIN" ? { bin_prefix: e.target.value.trim() } : { bank: e.target.value }))}
                        {...cond.aria}
                      />
                      <Problems id={cond.errId} messages={cond.messages} />
                    </td>
                    <td className={td}>
                      <input
                        className={cn(small, "min-w-40")}
                        aria-label={`Name of rule ${ri + 1}`}
                        value={r.rule_name}
                        onChange={(e) => onChange(updateRule(config, ri, { rule_name: e.target.value }))}
                        {...name.aria}
                      />
                      <Problems id={name.errId} messages={name.messages} />
                    </td>
                    <td className={td}>
                      <select
                        className={cn(small, "min-w-40")}
                        aria-label={`Group of ${label}`}
                        value={String(r.group_id)}
                        onChange={(e) => onChange(updateRule(config, ri, { group_id: Number(e.target.value) }))}
                        {...group.aria}
                      >
                        {groupOptions.some((o) => o.value === String(r.group_id)) ? null : <option value={String(r.group_id)}>#{r.group_id} (no such group)</option>}
                        {groupOptions.map((o) => (
                          <option key={o.value} value={o.value}>
                            {o.label}
                          </option>
                        ))}
                      </select>
                      <Problems id={group.errId} messages={group.messages} />
                    </td>
                    <td className={td}>
                      <input
                        type="checkbox"
                        className="mt-2"
                        aria-label={`${label} enabled`}
                        checked={r.enabled}
                        onChange={(e) => onChange(updateRule(config, ri, { enabled: e.target.checked }))}
                      />
                    </td>
                    <td className={td}>
                      <Button size="sm" variant="ghost" aria-label={`Remove ${label}`} onClick={() => onChange(removeRule(config, ri))}>
                        Remove
                      </Button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollTable>
        <div className="flex flex-wrap gap-2">
          <Button size="sm" onClick={() => onChange(addRule(config, "BIN"))}>
            Add BIN rule
          </Button>
          <Button size="sm" onClick={() => onChange(addRule(config, "BANK"))}>
            Add bank rule
          </Button>
        </div>
      </section>
    </div>
  );
}
