"use client";
/**
 * A modal dialog on the browser's own <dialog>: showModal() makes the rest of the page inert (focus
 * stays inside, screen readers see only the dialog), Escape closes it, and focus returns to what had
 * it before. Labelled by its title; described by `description` when given. The element marked
 * `data-autofocus` gets the focus when it opens.
 */
import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./button";
import { cn } from "./cn";

export function Dialog({
  open,
  title,
  description,
  onClose,
  children,
  className,
}: {
  open: boolean;
  title: string;
  description?: ReactNode;
  /** Escape, the backdrop's close, or a Cancel button: the owner sets `open` false. */
  onClose: () => void;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
      // Browsers differ on what showModal() focuses; the dialog names its first stop itself.
      d.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);

  // Closed by unmounting while open (e.g. the list it belongs to was redrawn): give focus back too.
  useEffect(
    () => () => {
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    },
    [],
  );

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(e) => {
        // Escape: the owner decides (it sets `open`), so the element and the state never disagree.
        e.preventDefault();
        onClose();
      }}
      onClose={() => {
        const el = opener.current;
        opener.current = null;
        if (el instanceof HTMLElement && el.isConnected) el.focus();
      }}
      className={cn(
        "m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg border border-slate-300 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40",
        className,
      )}
    >
      {open ? (
        <div className="space-y-3 p-4">
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          {description ? (
            <div id={descriptionId} className="text-sm text-slate-800">
              {description}
            </div>
          ) : null}
          {children}
        </div>
      ) : null}
    </dialog>
  );
}

/** A yes/no question about one thing, the safe answer first in the tab order and focused. */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  danger = false,
  busy = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog open={open} title={title} description={description} onClose={onCancel}>
      <div className="flex flex-wrap justify-end gap-2 pt-1">
        <Button data-autofocus onClick={onCancel}>
          Cancel
        </Button>
        <Button variant={danger ? "danger" : "primary"} disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}
