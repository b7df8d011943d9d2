"use client";
/**
 * The configuration editor: the groups and the rules as form tables, each field with the problem the
 * validate endpoint names at its path (the service's own checks), add and remove members, groups and
 * rules. Edits go through lib/features/routing/editor.ts; this only draws them.
 */
import { useId } from "react";
import { problemsElsewhere, type PathProblem, type RoutingConfig } from "@/lib/features/routing/editor";
import { useField } from "./editor-fields";
import { GroupsEditor } from "./groups-editor";
import { RulesEditor } from "./rules-editor";

export function ConfigEditor({ config, problems, onChange }: { config: RoutingConfig; problems: readonly PathProblem[]; onChange: (c: RoutingConfig) => void }) {
  const base = useId();
  const field = useField(problems, base);
  const elsewhere = problemsElsewhere(problems, config);

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
      <GroupsEditor config={config} onChange={onChange} field={field} base={base} />
      <RulesEditor config={config} onChange={onChange} field={field} base={base} />
    </div>
  );
}
