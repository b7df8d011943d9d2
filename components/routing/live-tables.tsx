/**
 * A routing configuration drawn as two tables: the groups (method, scope, members with weight and
 * active flag, the fallback named) and the rules in the order the service resolves them. Used for the
 * live version and for any version or pending change shown read-only.
 */
import { SCOPE_NAMES } from "@/lib/contract/routing-config";
import { groupLabel, ruleCondition, rulesInPrecedence, type RoutingConfig } from "@/lib/features/routing/editor";
import { cn } from "@/components/ui/cn";
import { useMidName } from "./use-mid-name";

const th = "px-3 py-2 text-left font-medium whitespace-nowrap";
const td = "px-3 py-1.5 align-top";

/** A table that scrolls sideways inside its own box on a narrow screen, never the page. */
export function ScrollTable({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div role="region" aria-label={`${label} (scrollable)`} tabIndex={0} className="relative overflow-x-auto rounded-md border border-slate-300 bg-white">
      {children}
    </div>
  );
}

export interface GroupState {
  group_id: number;
  total_calls: number;
  next_gateway_id: string | null;
}

export function GroupsTable({ config, state, label = "Routing groups" }: { config: RoutingConfig; state?: readonly GroupState[]; label?: string }) {
  const mid = useMidName();
  return (
    <ScrollTable label={label}>
      <table className="w-full text-sm" aria-label={label}>
        <thead className="bg-slate-100">
          <tr>
            <th scope="col" className={th}>Group</th>
            <th scope="col" className={th}>Method</th>
            <th scope="col" className={th}>Scope</th>
            <th scope="col" className={th}>Members (MID · weight · active)</th>
            {state ? <th scope="col" className={th}>Next MID · calls</th> : null}
          </tr>
        </thead>
        <tbody>
          {config.groups.map((g) => {
            const s = state?.find((x) => x.group_id === g.group_id);
            return (
              <tr key={g.group_id} className="border-t border-slate-200" data-group-id={g.group_id}>
                <th scope="row" className={cn(td, "text-left font-normal whitespace-nowrap")}>
                  {g.group_name} <span className="text-slate-600">#{g.group_id}</span>
                  {g.is_fallback ? <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-800">fallback</span> : null}
                </th>
                <td className={td}>{g.selection_method}</td>
                <td className={td}>{SCOPE_NAMES[g.cycle_scope]}</td>
                <td className={td}>
                  <ul className="flex flex-wrap gap-x-3 gap-y-0.5">
                    {g.members.map((m) => (
                      <li key={m.gateway_id} className={cn("whitespace-nowrap", m.active ? "" : "text-slate-600 line-through")}>
                        {mid(m.gateway_id)} · {m.weight}
                        {m.active ? "" : " · inactive"}
                      </li>
                    ))}
                  </ul>
                </td>
                {state ? (
                  <td className={cn(td, "whitespace-nowrap tabular-nums")}>
                    {s ? `${s.next_gateway_id === null ? "none active" : mid(s.next_gateway_id)} · ${s.total_calls.toLocaleString("en-US")}` : "—"}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollTable>
  );
}

export function RulesTable({ config, label = "Routing rules in precedence order" }: { config: RoutingConfig; label?: string }) {
  const ordered = rulesInPrecedence(config.rules);
  return (
    <ScrollTable label={label}>
      <table className="w-full text-sm" aria-label={label}>
        <caption className="px-3 pt-2 pb-1 text-left text-xs text-slate-700">
          The order the service tries them: BIN rules (longest prefix first, then newest), then bank rules (newest first); calls no
          enabled rule takes go to the fallback group.
        </caption>
        <thead className="bg-slate-100">
          <tr>
            <th scope="col" className={th}>#</th>
            <th scope="col" className={th}>Rule</th>
            <th scope="col" className={th}>Matches</th>
            <th scope="col" className={th}>Group</th>
            <th scope="col" className={th}>Enabled</th>
          </tr>
        </thead>
        <tbody>
          {ordered.length === 0 ? (
            <tr>
              <td colSpan={5} className={cn(td, "text-slate-700")}>
                No rules: every call goes to the fallback group.
              </td>
            </tr>
          ) : (
            ordered.map(({ rule, index }, k) => (
              <tr key={`${index}-${rule.rule_name}`} className={cn("border-t border-slate-200", rule.enabled ? "" : "text-slate-600")} data-rule-name={rule.rule_name}>
                <td className={cn(td, "tabular-nums")}>{k + 1}</td>
                <th scope="row" className={cn(td, "text-left font-normal")}>
                  {rule.rule_name}
                </th>
                <td className={cn(td, "whitespace-nowrap")}>{ruleCondition(rule)}</td>
                <td className={cn(td, "whitespace-nowrap")}>{groupLabel(config.groups, rule.group_id)}</td>
                <td className={td}>{rule.enabled ? "yes" : "no (skipped)"}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </ScrollTable>
  );
}
