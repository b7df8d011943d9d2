"use client";
/** The groups being edited: each group's name, method, cycle scope and fallback flag, its members (add, edit, remove), and adding or removing groups. */
import { useState } from "react";
import { SCOPE_NAMES, CYCLE_SCOPES, type CycleScope } from "@/lib/contract/routing-config";
import { SELECTION_METHODS, type SelectionMethod } from "@/lib/contract/routing-values";
import { addGroup, addMember, removeGroup, removeMember, setFallback, updateGroup, updateMember, type RoutingConfig } from "@/lib/features/routing/editor";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { EditorTable, Problems, intText, small, td, toInt, type FieldAt } from "./editor-fields";

export function GroupsEditor({ config, onChange, field, base }: { config: RoutingConfig; onChange: (c: RoutingConfig) => void; field: FieldAt; base: string }) {
  const [newMember, setNewMember] = useState<Record<number, string>>({});
  return (
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
            <EditorTable label={`Members of group #${g.group_id}`} columns={["MID", "Weight", "Active"]} className="mt-2 w-full text-sm" headClassName="bg-slate-50">
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
            </EditorTable>
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
  );
}
