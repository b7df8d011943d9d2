"use client";
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Button, type ButtonProps } from "./button";
import { cn } from "./cn";

/**
 * A non-modal popover: a button that opens a panel (role="dialog") next to it. Escape or a click
 * outside closes it; Escape returns focus to the button.
 */
export function Popover({
  trigger,
  title,
  children,
  buttonProps,
  panelClassName,
  className = "relative",
}: {
  trigger: ReactNode;
  /** The panel's accessible name. */
  title: string;
  children: (close: () => void) => ReactNode;
  buttonProps?: ButtonProps;
  panelClassName?: string;
  /** The positioning context of the panel; "static" lets an ancestor be it. */
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  // Focus goes back by id, not by ref: `close` is handed to the panel's render function.
  const close = useCallback(() => {
    setOpen(false);
    document.getElementById(`${id}-button`)?.focus();
  }, [id]);

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  return (
    <div ref={root} className={className}>
      <Button
        ref={button}
        id={`${id}-button`}
        aria-expanded={open}
        aria-controls={open ? `${id}-panel` : undefined}
        aria-haspopup="dialog"
        onClick={() => setOpen((o) => !o)}
        {...buttonProps}
      >
        {trigger}
      </Button>
      {open ? (
        <div
          id={`${id}-panel`}
          role="dialog"
          aria-label={title}
          className={cn(
            "absolute left-0 z-30 mt-1 w-[min(24rem,calc(100vw-2rem))] rounded-md border border-slate-300 bg-white p-3 shadow-lg",
            panelClassName,
          )}
        >
          {children(close)}
        </div>
      ) : null}
    </div>
  );
}
