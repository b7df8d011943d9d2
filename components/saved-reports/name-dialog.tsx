"use client";
/**
 * Asks for the name of a report or dashboard being saved (or renamed), in the page's own dialog:
 * the name is required and bounded, and a name the user already gave another of their items on that
 * page is pointed out before saving, with the choice to save anyway or change it. A failed save is
 * shown in the dialog, which stays open with the name typed.
 */
import { useEffect, useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { itemNoun, sameNamed, type NamedItem } from "@/lib/features/saved-reports/names";
import type { SavedPage } from "@/lib/features/saved-reports/model";

const NAME_MAX = 200;

export function NameDialog({
  open,
  title,
  page,
  initial = "",
  exceptId,
  submitLabel = "Save",
  onCancel,
  onSave,
}: {
  open: boolean;
  title: string;
  page: SavedPage;
  initial?: string;
  /** The item being renamed, which may keep its own name. */
  exceptId?: string;
  submitLabel?: string;
  onCancel: () => void;
  /** Saves under the name; a thrown error is shown in the dialog. */
  onSave: (name: string) => Promise<void>;
}) {
  const inputId = useId();
  const hintId = useId();
  const [name, setName] = useState(initial);
  const [items, setItems] = useState<NamedItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [openedWith, setOpenedWith] = useState<{ open: boolean; initial: string }>({ open: false, initial });
  if (openedWith.open !== open || openedWith.initial !== initial) {
    // Each opening starts from the name offered then, with no error left from the last one.
    setOpenedWith({ open, initial });
    if (open) {
      setName(initial);
      setError(null);
    }
  }

  useEffect(() => {
    if (!open) return;
    const ctrl = new AbortController();
    apiFetch<{ items: NamedItem[] }>(`/api/saved-reports/names?page=${page}`, { signal: ctrl.signal })
      .then((r) => setItems(r.items))
      // Without the list the dialog still saves; it only cannot warn.
      .catch(() => setItems(null));
    return () => ctrl.abort();
  }, [open, page]);

  const trimmed = name.trim();
  const twin = items ? sameNamed(trimmed, items, exceptId) : null;
  const noun = itemNoun(page);

  const submit = async () => {
    if (!trimmed) {
      setError("Give it a name.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSave(trimmed);
    } catch (e) {
      setError(e instanceof Error ? e.message : `Could not save the ${noun}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} title={title} onClose={onCancel}>
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div>
          <label htmlFor={inputId} className="block text-sm font-medium">
            Name
          </label>
          <input
            id={inputId}
            data-autofocus
            value={name}
            maxLength={NAME_MAX}
            onChange={(e) => setName(e.target.value)}
            aria-describedby={twin || error ? hintId : undefined}
            aria-invalid={error ? true : undefined}
            className="mt-1 w-full rounded border border-slate-300 px-2 py-1"
          />
          <div id={hintId}>
            {twin ? (
              <p role="status" className="mt-1 text-sm text-amber-900">
                You already have a {noun} named “{twin.name}”. Saving makes a second one with the same name; change the name to tell them apart.
              </p>
            ) : null}
            {error ? (
              <p role="alert" className="mt-1 text-sm text-red-800">
                {error}
              </p>
            ) : null}
          </div>
        </div>
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onCancel}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {twin ? `${submitLabel} anyway` : submitLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
