/**
 * A configuration change against the live version, field by field: groups and rules added, removed
 * or changed, each changed field as before → after, and the BIN prefixes and banks whose routing the
 * change touches. The diff itself is lib/features/routing/diff.ts's.
 */
import type { ConfigDiff, DiffValue, FieldChange } from "@/lib/features/routing/diff";
import { cn } from "@/components/ui/cn";

const CHANGE_WORDS = { added: "Added", removed: "Removed", changed: "Changed" } as const;
const CHANGE_TONE = { added: "text-emerald-900", removed: "text-red-900", changed: "text-slate-900" } as const;

const shown = (v: DiffValue) => (v === null ? "—" : typeof v === "boolean" ? (v ? "yes" : "no") : String(v));

function Fields({ fields }: { fields: readonly FieldChange[] }) {
  return (
    <ul className="mt-1 flex flex-col gap-0.5 pl-4 text-sm">
      {fields.map((f) => (
        <li key={f.field}>
          <span className="font-medium">{f.field}</span>: {f.before === null ? "" : <del className="text-red-900">{shown(f.before)}</del>}
          {f.before !== null && f.after !== null ? " → " : null}
          {f.after === null ? "" : <ins className="text-emerald-900 no-underline">{shown(f.after)}</ins>}
        </li>
      ))}
    </ul>
  );
}

export function DiffView({ diff, against }: { diff: ConfigDiff; against: string }) {
  if (diff.unchanged) {
    return (
      <p className="rounded-md border border-dashed border-slate-300 bg-white px-3 py-2 text-sm text-slate-800" data-testid="routing-diff">
        No difference from {against}.
      </p>
    );
  }
  const affected = [...diff.affected.bin_prefixes.map((b) => `BIN ${b}…`), ...diff.affected.banks.map((b) => `bank ${b}`)];
  return (
    <div className="flex flex-col gap-2 rounded-md border border-slate-300 bg-white p-3" data-testid="routing-diff" aria-label={`Changes against ${against}`} role="group">
      {diff.groups.length > 0 ? (
        <div>
          <h4 className="text-sm font-medium">Groups</h4>
          <ul className="flex flex-col gap-1">
            {diff.groups.map((g) => (
              <li key={`${g.change}-${g.group_id}`} className={cn("text-sm", CHANGE_TONE[g.change])}>
                {CHANGE_WORDS[g.change]} group {g.group_name} (#{g.group_id})
                <Fields fields={g.fields} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {diff.rules.length > 0 ? (
        <div>
          <h4 className="text-sm font-medium">Rules</h4>
          <ul className="flex flex-col gap-1">
            {diff.rules.map((r) => (
              <li key={`${r.change}-${r.rule_name}`} className={cn("text-sm", CHANGE_TONE[r.change])}>
                {CHANGE_WORDS[r.change]} {r.type} rule &quot;{r.rule_name}&quot;
                <Fields fields={r.fields} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="text-sm text-slate-800">{affected.length > 0 ? `Traffic whose rule changes: ${affected.join(", ")}.` : "No rule changes: the same traffic reaches the same groups."}</p>
    </div>
  );
}
