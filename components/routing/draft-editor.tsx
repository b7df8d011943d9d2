"use client";
/**
 * The copy of the live configuration being edited: each edit checked by the service's own rules
 * (POST /api/routing/validate, the last answer winning), its problems at the fields they concern, the
 * difference from live, the rotation it would reset, a preview, and the reason it is submitted with.
 */
import { useEffect, useId, useState, type FormEvent, type Ref } from "react";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import type { ValidateAnswer } from "@/lib/features/routing/model";
import { apiFetch, failureText } from "@/lib/core/api-client/fetch";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { inputClass } from "@/components/ui/field";
import { ConfigEditor } from "./config-editor";
import { DiffView } from "./diff-view";
import { PreviewPanel } from "./preview-panel";

export function DraftEditor({
  ref,
  draft,
  onChange,
  liveVersion,
  twoPerson,
  canSubmit,
  busy,
  reason,
  onReason,
  onSubmit,
  onDiscard,
}: {
  /** The editor's box, focused when editing starts or a proposal is placed. */
  ref: Ref<HTMLDivElement>;
  draft: RoutingConfig;
  onChange: (config: RoutingConfig) => void;
  liveVersion: number;
  twoPerson: boolean;
  canSubmit: boolean;
  busy: boolean;
  reason: string;
  onReason: (reason: string) => void;
  /** Submits the copy with its reason (trimmed, never empty). */
  onSubmit: (reason: string) => Promise<void>;
  onDiscard: () => void;
}) {
  const ids = useId();
  const [validation, setValidation] = useState<ValidateAnswer | null>(null);
  const [validateError, setValidateError] = useState<string | null>(null);
  const [reasonError, setReasonError] = useState<string | null>(null);

  // Every edit is checked by the service's own rules; the last answer wins.
  useEffect(() => {
    const abort = new AbortController();
    const timer = setTimeout(() => {
      apiFetch<ValidateAnswer>("/api/routing/validate", { method: "POST", body: { config: draft }, signal: abort.signal })
        .then((v) => {
          setValidation(v);
          setValidateError(null);
        })
        .catch((e: unknown) => {
          if (!abort.signal.aborted) setValidateError(failureText(e));
        });
    }, 300);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [draft]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (reason.trim() === "") return setReasonError("Give a reason for the change: it is recorded with the version and in the audit log.");
    setReasonError(null);
    void onSubmit(reason.trim());
  };

  return (
    <>
      <div ref={ref} tabIndex={-1} className="outline-none">
        <ConfigEditor config={draft} problems={validation?.problems ?? []} onChange={onChange} />
      </div>
      {validateError ? (
        <p role="alert" className="text-sm font-medium text-red-800">
          Not checked: {validateError}
        </p>
      ) : null}
      <h3 className="font-medium">Against the live version</h3>
      {validation?.diff ? (
        <DiffView diff={validation.diff} against={`live version ${validation.live_version ?? liveVersion}`} />
      ) : (
        <p className="text-sm text-slate-700">{validation ? "No difference can be shown until the configuration's shape is right (see the problems above)." : "Checking…"}</p>
      )}
      {validation && validation.rotation.length > 0 ? (
        <p className="text-sm text-slate-800">
          Rotation if applied: {validation.rotation.map((r) => `#${r.group_id} ${r.outcome}${r.outcome === "reset" && r.reason ? ` (${r.reason})` : ""}`).join("; ")}.
        </p>
      ) : null}
      <h3 className="font-medium">Preview</h3>
      <PreviewPanel config={draft} />
      <form onSubmit={submit} className="flex flex-col gap-2" aria-label="Submit the change">
        <label htmlFor={`${ids}-reason`} className="text-sm font-medium">
          Reason for the change
        </label>
        <textarea
          id={`${ids}-reason`}
          rows={2}
          className={cn(inputClass)}
          value={reason}
          onChange={(e) => onReason(e.target.value)}
          aria-invalid={reasonError !== null}
          aria-describedby={reasonError ? `${ids}-reason-error` : undefined}
        />
        {reasonError ? (
          <p id={`${ids}-reason-error`} role="alert" className="text-sm font-medium text-red-800">
            {reasonError}
          </p>
        ) : null}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="primary" disabled={busy || !canSubmit || !validation?.valid || validation.diff?.unchanged !== false}>
            {twoPerson ? "Propose" : "Apply"}
          </Button>
          <Button variant="ghost" onClick={onDiscard}>
            Discard
          </Button>
        </div>
        {validation && !validation.valid ? <p className="text-sm text-red-800">Fix the problems above first.</p> : null}
        {validation?.valid && validation.diff?.unchanged ? <p className="text-sm text-slate-700">Nothing to submit: the copy is the live configuration.</p> : null}
      </form>
    </>
  );
}
