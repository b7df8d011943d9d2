"use client";
/** The rules being edited, in precedence order: each BIN prefix or bank, name, group and whether it is enabled; adding and removing rules. */
import { addRule, removeRule, updateRule, type RoutingConfig } from "@/lib/features/routing/editor";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { EditorTable, Problems, small, td, type FieldAt } from "./editor-fields";

export function RulesEditor({ config, onChange, field, base }: { config: RoutingConfig; onChange: (c: RoutingConfig) => void; field: FieldAt; base: string }) {
  const groupOptions = config.groups.map((g) => ({ value: String(g.group_id), label: `${g.group_name} (#${g.group_id})` }));
  return (
    <section aria-labelledby={`${base}-rules`} className="flex flex-col gap-2">
      <h4 id={`${base}-rules`} className="font-medium">
        Rules
      </h4>
      <EditorTable label="Rules being edited" columns={["Type", "BIN prefix / bank", "Name", "Group", "Enabled"]} className="w-full text-sm" headClassName="bg-slate-100">
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
      </EditorTable>
      <div className="flex flex-wrap gap-2">
        <Button size="sm" onClick={() => onChange(addRule(config, "BIN"))}>
          Add BIN rule
        </Button>
        <Button size="sm" onClick={() => onChange(addRule(config, "BANK"))}>
          Add bank rule
        </Button>
      </div>
    </section>
  );
}
