"use client";
/**
 * An admin's way back for a rule or scheduled report paused because its owner was disabled or may no
 * longer own it: give it to a user who may (an active analyst or admin) and resume it. The server
 * checks the new owner's rights and caps and says why when it refuses.
 */
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import type { DirectoryUser } from "./answers";

/** Whether an item paused for its owner's rights can be handed over here. */
export const reassignable = (reason: string | null | undefined) => reason === "owner_disabled" || reason === "owner_role";

export function ReassignControl({
  name,
  ownerId,
  users,
  busy,
  onReassign,
}: {
  /** What is handed over, for the labels ("Weak gateway"). */
  name: string;
  ownerId: string;
  users: readonly DirectoryUser[] | undefined;
  busy: boolean;
  onReassign: (ownerId: string) => void;
}) {
  const id = useId();
  const candidates = (users ?? []).filter((u) => u.id !== ownerId && (u.role === "analyst" || u.role === "admin"));
  const [to, setTo] = useState("");
  if (candidates.length === 0) return null;
  return (
    <div className="mt-2 flex flex-wrap items-end gap-2">
      <label htmlFor={`${id}-owner`} className="text-sm font-medium text-slate-900">
        Give {name} to
      </label>
      <Select
        id={`${id}-owner`}
        className="w-auto"
        value={to}
        placeholder="Choose a user"
        options={candidates.map((u) => ({ value: u.id, label: `${u.email} (${u.role})` }))}
        onChange={(e) => setTo(e.target.value)}
      />
      <Button size="sm" disabled={busy || to === ""} onClick={() => onReassign(to)}>
        Reassign and resume
      </Button>
    </div>
  );
}
