"use client";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { inputClass } from "@/components/ui/field";

/**
 * A sensitive action asked for with its reason (rejecting a change, restoring a version): a button
 * that opens a small form whose reason is required, recorded with the action and in the audit log.
 * `onSubmit` answers the server's refusal in words, or null; the form stays open with it.
 */
export function ReasonForm({
  open: openText,
  openVariant,
  label,
  field,
  missing,
  submit: submitText,
  submitVariant,
  onSubmit,
}: {
  /** The button that opens the form. */
  open: string;
  openVariant?: "danger";
  /** The form's accessible name. */
  label: string;
  /** The reason field's label. */
  field: string;
  /** What an empty reason is told. */
  missing: string;
  submit: string;
  submitVariant: "danger" | "primary";
  onSubmit: (reason: string) => Promise<string | null>;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!open) {
    return (
      <Button size="sm" variant={openVariant} onClick={() => setOpen(true)}>
        {openText}
      </Button>
    );
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (reason.trim() === "") return setError(missing);
    setBusy(true);
    setError(await onSubmit(reason.trim()));
    setBusy(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="flex flex-wrap items-end gap-2" aria-label={label}>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-reason`} className="text-sm font-medium">
          {field}
        </label>
        <input
          id={`${id}-reason`}
          className={cn(inputClass, "min-h-8 py-1")}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          aria-invalid={error !== null}
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </div>
      <Button size="sm" type="submit" variant={submitVariant} disabled={busy}>
        {submitText}
      </Button>
      <Button size="sm" variant="ghost" onClick={() => setOpen(false)}>
        Cancel
      </Button>
      {error ? (
        <p id={`${id}-error`} role="alert" className="w-full text-xs font-medium text-red-700">
          {error}
        </p>
      ) : null}
    </form>
  );
}
