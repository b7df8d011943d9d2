"use client";
/** What the groups and rules editors share: their table and field classes, whole numbers typed, and each field's problems from the validate endpoint. */
import type { ReactNode } from "react";
import { problemsAt, type PathProblem } from "@/lib/features/routing/editor";
import { cn } from "@/components/ui/cn";
import { inputClass } from "@/components/ui/field";
import { ScrollTable } from "./live-tables";

export const th = "px-2 py-2 text-left font-medium whitespace-nowrap";
export const td = "px-2 py-1.5 align-top";
export const small = cn(inputClass, "min-h-8 py-1");

/** A whole number typed in a field; anything else stays NaN so the service's check names the field. */
export const toInt = (s: string) => (/^\s*\d+\s*$/.test(s) ? Number(s) : Number.NaN);
export const intText = (n: number) => (Number.isFinite(n) ? String(n) : "");

/** An editor's table: its columns' headings and a last one for each row's Remove button, then the rows. */
export function EditorTable({ label, columns, className, headClassName, children }: { label: string; columns: readonly string[]; className: string; headClassName: string; children: ReactNode }) {
  return (
    <ScrollTable label={label}>
      <table className={className} aria-label={label}>
        <thead className={headClassName}>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col" className={th}>
                {c}
              </th>
            ))}
            <th scope="col" className={th}>
              <span className="sr-only">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollTable>
  );
}

/** The messages under a control, tied to it by id. */
export function Problems({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <p id={id} className="mt-0.5 text-xs font-medium text-red-700">
      {messages.join("; ")}
    </p>
  );
}

/** aria props of a control with problems at `path`. */
export function useField(problems: readonly PathProblem[], base: string) {
  return (path: string) => {
    const messages = problemsAt(problems, path);
    const errId = `${base}-${path.replace(/[^a-z0-9]/gi, "-")}-err`;
    return {
      messages,
      errId,
      aria: messages.length > 0 ? { "aria-invalid": true as const, "aria-describedby": errId } : {},
    };
  };
}

/** A field's messages, error id and aria props, by its path in the configuration. */
export type FieldAt = ReturnType<typeof useField>;
