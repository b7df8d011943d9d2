"use client";
/**
 * Every version of the live configuration, newest first: who, when, why, what the change did to each
 * group's rotation, and the version's tables on demand. An editor restores an older version with a
 * reason (a new version, or a pending change under the two-person rule).
 */
import type { RoutingConfigVersion } from "@/lib/contract/bin-routing";
import { formatInstant } from "@/lib/report/metrics/format";
import { normalizeConfig } from "@/lib/features/routing/diff";
import { GroupsTable, RulesTable } from "./live-tables";
import { ReasonForm } from "./reason-form";

function rotationWords(v: RoutingConfigVersion): string {
  if (v.rotation.length === 0) return "—";
  return v.rotation.map((r) => `#${r.group_id} ${r.outcome}${r.outcome === "reset" && r.reason ? ` (${r.reason})` : ""}`).join("; ");
}

export function VersionsList({
  versions,
  liveVersion,
  canRestore,
  twoPerson,
  timeZone,
  onRestore,
}: {
  versions: readonly RoutingConfigVersion[];
  liveVersion: number | null;
  canRestore: boolean;
  twoPerson: boolean;
  timeZone: string;
  /** Restores `version`; answers an error message, or null when done. */
  onRestore: (version: number, reason: string) => Promise<string | null>;
}) {
  if (versions.length === 0) return <p className="text-sm text-slate-700">No versions yet.</p>;
  return (
    <ol className="flex flex-col gap-2" aria-label="Configuration versions, newest first">
      {versions.map((v) => {
        const config = normalizeConfig(v.config);
        const live = v.version === liveVersion;
        return (
          <li key={v.version} className="rounded-md border border-slate-300 bg-white p-3 text-sm" data-version={v.version}>
            <div className="flex flex-wrap items-start justify-between gap-2">
              <div className="min-w-0">
                <p className="font-medium">
                  Version {v.version}
                  {live ? <span className="ml-2 rounded bg-emerald-100 px-1.5 py-0.5 text-xs font-medium text-emerald-900">live</span> : null}
                  {v.restored_from !== null ? <span className="ml-2 text-slate-700">(restores v{v.restored_from})</span> : null}
                </p>
                <p className="text-slate-800">
                  <time dateTime={v.created_at}>{formatInstant(v.created_at, timeZone)}</time> by {v.author}: {v.reason}
                </p>
                <p className="text-slate-700">Rotation: {rotationWords(v)}</p>
              </div>
              {canRestore && !live ? (
                <ReasonForm
                  open={`Restore v${v.version}`}
                  label={`Restore version ${v.version}`}
                  field={`Reason for restoring v${v.version}`}
                  missing="Give a reason for restoring this version: it is recorded with the change."
                  submit={twoPerson ? "Propose restore" : "Restore"}
                  submitVariant="primary"
                  onSubmit={(reason) => onRestore(v.version, reason)}
                />
              ) : null}
            </div>
            {config ? (
              <details className="mt-2">
                <summary className="cursor-pointer text-blue-800">Tables of version {v.version}</summary>
                <div className="mt-2 flex flex-col gap-2">
                  <GroupsTable config={config} label={`Groups of version ${v.version}`} />
                  <RulesTable config={config} label={`Rules of version ${v.version}`} />
                </div>
              </details>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}
