"use client";
/**
 * What the alert-rule and subscription forms tell while saving: the server's refusals put onto their
 * fields, the announced summary of the form's problems, a field's own errors and hints, and the Save
 * and Cancel buttons, which wait while it saves. The fields they share are ./delivery-fields.tsx.
 */
import { useId, useState, type ReactNode } from "react";
import type { Recipients } from "@/lib/features/notifications/definition";
import { RequestError } from "@/lib/core/api-client/fetch";
import { Button } from "@/components/ui/button";
import type { FieldErrors } from "./drafts";
import type { DirectoryUser } from "./answers";

/** The server's refusal details by field, in words (./server-errors.ts, loaded only when a save is refused). */
type Refusals<F extends string> = (
  details: readonly { path: string; message: string }[],
  sent: { sent: Recipients; users: readonly DirectoryUser[] | undefined },
) => Promise<{ fields: FieldErrors<F>; other: string[] }>;

/**
 * A form's saving: its fields' errors and the summary's items (each named by `labels`), whether a
 * save is under way, `refuse` for what the form itself finds wrong, and `save`, which runs the
 * request and puts the server's refusals next to their fields. `id` is the form's base for its
 * controls' ids; `errId(field)` is where a field's messages are, and `invalid(field)` its
 * aria-invalid.
 */
export function useSaving<F extends string>(labels: Record<F, string>, refusals: Refusals<F>) {
  const id = useId();
  const [errors, setErrors] = useState<FieldErrors<F>>({});
  const [failure, setFailure] = useState<{ message: string | null; other: string[] } | null>(null);
  const [busy, setBusy] = useState(false);

  const refuse = (fields: FieldErrors<F>, message: string | null) => {
    setErrors(fields);
    setFailure({ message, other: [] });
  };
  const save = async (request: () => Promise<void>, sent: { recipients: Recipients; users: readonly DirectoryUser[] | undefined }, unsaved: string) => {
    setBusy(true);
    setErrors({});
    setFailure(null);
    try {
      await request();
    } catch (x) {
      if (x instanceof RequestError && x.details.length > 0) {
        const mapped = await refusals(x.details, { sent: sent.recipients, users: sent.users });
        setErrors(mapped.fields);
        setFailure({ message: mapped.other.length > 0 ? x.message : null, other: mapped.other });
      } else setFailure({ message: x instanceof Error ? `${x.message}${x instanceof RequestError ? ` ${x.action}` : ""}` : unsaved, other: [] });
    } finally {
      setBusy(false);
    }
  };
  const items = [
    ...(Object.entries(errors) as [F, string[]][]).flatMap(([f, ms]) => ms.map((m) => ({ label: labels[f], message: m }))),
    ...(failure?.other ?? []).map((m) => ({ label: "Other", message: m })),
  ];
  const errId = (f: F) => `${id}-${f}-error`;
  const invalid = (f: F) => ((errors[f]?.length ?? 0) > 0 ? true : undefined);
  return { id, errors, failure, busy, items, refuse, save, errId, invalid };
}


/** The form's submit button and, when it can be closed, Cancel; both wait while it saves. */
export function FormButtons({ busy, submit, onCancel }: { busy: boolean; submit: string; onCancel: (() => void) | undefined }) {
  return (
    <div className="flex flex-wrap gap-2">
      <Button type="submit" variant="primary" disabled={busy}>
        {submit}
      </Button>
      {onCancel ? (
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      ) : null}
    </div>
  );
}

/** The form's problems as one announced list; each names its field. */
export function ErrorSummary({ title, message, items }: { title: string; message: string | null; items: { label: string; message: string }[] }) {
  if (!message && items.length === 0) return null;
  return (
    <div role="alert" className="rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-950">
      <p className="font-semibold">{title}</p>
      {message ? <p>{message}</p> : null}
      {items.length > 0 ? (
        <ul className="mt-1 list-disc pl-5">
          {items.map((it, i) => (
            <li key={i}>
              <span className="font-medium">{it.label}:</span> {it.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A field's errors, under it; its id goes into the control's aria-describedby. */
export function FieldMessages({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div id={id} className="text-sm font-medium text-red-800">
      {messages.map((m, i) => (
        <p key={i}>
          <span aria-hidden="true">⚠ </span>
          {m}
        </p>
      ))}
    </div>
  );
}

export function Hint({ id, children }: { id?: string; children: ReactNode }) {
  return (
    <p id={id} className="text-xs text-slate-700">
      {children}
    </p>
  );
}

/** Ids joined for aria-describedby, skipping the absent. */
export const ids = (...parts: (string | false | null | undefined)[]) => parts.filter(Boolean).join(" ") || undefined;
