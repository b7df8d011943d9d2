"use client";
/**
 * Changes waiting for a second editor (the two-person rule) and the latest decided ones: what each
 * changes against the live version, who proposed it and why; Approve (applies it, only while its base
 * version is still live) and Reject with a reason for an editor other than the proposer.
 */
import { useState } from "react";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import { formatInstant } from "@/lib/report/metrics/format";
import { diffConfigs, normalizeConfig } from "@/lib/features/routing/diff";
import type { RoutingChange } from "@/lib/features/routing/model";
import { Button } from "@/components/ui/button";
import { DiffView } from "./diff-view";
import { ReasonForm } from "./reason-form";

const STATUS_WORDS: Record<RoutingChange["status"], string> = {
  pending: "waiting for approval",
  applied: "applied",
  rejected: "rejected",
  superseded: "superseded",
  withdrawn: "withdrawn",
};

export function PendingChanges({
  changes,
  live,
  liveVersion,
  canEdit,
  userId,
  twoPerson,
  timeZone,
  onApprove,
  onReject,
  refusals = {},
  label = "Pending changes",
}: {
  changes: readonly RoutingChange[];
  live: RoutingConfig | null;
  liveVersion: number | null;
  canEdit: boolean;
  userId: string;
  twoPerson: boolean;
  timeZone: string;
  onApprove: (id: string) => Promise<string | null>;
  onReject: (id: string, reason: string) => Promise<string | null>;
  /** Pending changes this user may not approve under the two-person rule, with why. */
  refusals?: Readonly<Record<string, string>>;
  label?: string;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  if (changes.length === 0) return <p className="text-sm text-slate-700">No changes waiting.</p>;
  const approve = async (id: string) => {
    setBusy(id);
    const error = await onApprove(id);
    setBusy(null);
    setErrors((e) => {
      const { [id]: _drop, ...rest } = e;
      return error ? { ...rest, [id]: error } : rest;
    });
  };
  return (
    <ul className="flex flex-col gap-3" aria-label={label}>
      {changes.map((c) => {
        const config = c.config ? normalizeConfig(c.config) : null;
        const own = c.proposed_by.id === userId;
        const stale = liveVersion !== null && c.base_version !== liveVersion;
        return (
          <li key={c.id} className="rounded-md border border-slate-300 bg-white p-3 text-sm" data-change-id={c.id} data-status={c.status}>
            <p className="font-medium">
              {c.kind === "restore" ? `Restore version ${c.restore_version ?? "?"}` : "Configuration change"} on version {c.base_version}: {STATUS_WORDS[c.status]}
            </p>
            <p className="text-slate-800">
              Proposed by {c.proposed_by.email} at <time dateTime={c.proposed_at}>{formatInstant(c.proposed_at, timeZone)}</time>: {c.reason}
            </p>
            {c.decided_by && c.decided_at ? (
              <p className="text-slate-800">
                {STATUS_WORDS[c.status][0]!.toUpperCase() + STATUS_WORDS[c.status].slice(1)} by {c.decided_by.email} at{" "}
                <time dateTime={c.decided_at}>{formatInstant(c.decided_at, timeZone)}</time>
                {c.decision_reason ? `: ${c.decision_reason}` : ""}
                {c.applied_version !== null ? ` (version ${c.applied_version})` : ""}
              </p>
            ) : null}
            {c.status === "pending" && config && live ? (
              <div className="mt-2">
                <DiffView diff={diffConfigs(live, config)} against={`live version ${liveVersion ?? "?"}`} />
              </div>
            ) : null}
            {c.status === "pending" && stale ? (
              <p className="mt-1 font-medium text-amber-900">
                The live version is now {liveVersion}, not {c.base_version}: approving it will be refused and the change marked superseded. Propose it again on the
                live version.
              </p>
            ) : null}
            {c.status === "pending" && canEdit ? (
              <div className="mt-2 flex flex-wrap items-start gap-2">
                {twoPerson && own ? (
                  <p className="text-slate-700">You proposed this change: another editor approves it.</p>
                ) : refusals[c.id] ? (
                  <p className="text-slate-700" data-testid="approval-refusal">
                    {refusals[c.id]}.
                  </p>
                ) : (
                  <Button size="sm" variant="primary" disabled={busy === c.id} onClick={() => void approve(c.id)}>
                    {busy === c.id ? "Applying…" : "Approve and apply"}
                  </Button>
                )}
                <ReasonForm
                  open="Reject"
                  openVariant="danger"
                  label="Reject the change"
                  field="Reason for rejecting"
                  missing="Say why the change is rejected: the proposer and the audit log see it."
                  submit="Reject change"
                  submitVariant="danger"
                  onSubmit={(reason) => onReject(c.id, reason)}
                />
              </div>
            ) : null}
            {errors[c.id] ? (
              <p role="alert" className="mt-1 font-medium text-red-800">
                {errors[c.id]}
              </p>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
