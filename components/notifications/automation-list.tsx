"use client";
/**
 * The list alert rules and scheduled reports share: each item a card with its title and state, an
 * admin's reassignment when it was paused for its owner's rights, its own actions beside Pause/Resume,
 * Edit and Delete, its details in a definition list, and its edit form in place. Every change says
 * what became of it (through `onChanged`) or, on failure, which item failed and why.
 */
import { Fragment, useState, type ReactNode } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { Button } from "@/components/ui/button";
import { pausedLabel, type DirectoryUser } from "./answers";
import { ReassignControl, reassignable } from "./reassign";

export interface AutomationItem {
  id: string;
  ownerId: string;
  paused: boolean;
  pausedReason: string | null;
}

/** What the list's own actions and an item's extra ones are given. */
export interface ItemActions<T> {
  busy: boolean;
  /** Runs a change of this item; its promise resolves with what to tell. */
  act: (fn: () => Promise<string>) => Promise<void>;
  item: T;
}

/** The words and parts that differ between alert rules and scheduled reports. */
export interface AutomationKind<T extends AutomationItem> {
  /** The list's accessible name. */
  label: string;
  empty: string;
  /** The item's API resource, e.g. /api/notifications/alerts/ID. */
  path: (item: T) => string;
  /** How a failure names the item. */
  name: (item: T) => string;
  /** The heading's text or link, before the state badge. */
  title: (item: T) => ReactNode;
  /** Under the heading: who owns it, what it is. */
  byline: (item: T) => ReactNode;
  /** The item as the reassign control names it. */
  reassignName: (item: T) => string;
  /** Buttons before Pause/Resume. */
  actions: (a: ItemActions<T>) => ReactNode;
  pauseLabel: (item: T) => string;
  editLabel: (item: T) => string;
  deleteLabel: (item: T) => string;
  paused: (item: T) => string;
  resumed: (item: T) => string;
  reassigned: (item: T, email: string) => string;
  confirmDelete: (item: T) => string;
  deleted: (item: T) => string;
  /** The details: each a term and its description (`wrap`: long words such as addresses break). */
  details: (item: T) => { term: string; description: ReactNode; wrap?: boolean }[];
  /** After the details: its history, its mail's fate, a preview. */
  after: (item: T) => ReactNode;
  editTitle: (item: T) => string;
  /** The edit form; `done` closes it and tells what was saved, `cancel` closes it. */
  editor: (item: T, done: (message: string) => void, cancel: () => void) => ReactNode;
}

export function AutomationList<T extends AutomationItem>({
  kind,
  items,
  users,
  selfId,
  onChanged,
}: {
  kind: AutomationKind<T>;
  items: readonly T[];
  users: readonly DirectoryUser[] | undefined;
  selfId: string;
  onChanged: (message: string) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const act = async (item: T, fn: () => Promise<string>) => {
    setBusy(item.id);
    setError(null);
    try {
      onChanged(await fn());
    } catch (e) {
      setError(`“${kind.name(item)}”: ${e instanceof Error ? e.message : "the change failed"}`);
    } finally {
      setBusy(null);
    }
  };
  const togglePause = (item: T) =>
    act(item, async () => {
      await apiFetch(kind.path(item), { method: "PATCH", body: { paused: !item.paused } });
      return item.paused ? kind.resumed(item) : kind.paused(item);
    });
  const reassign = (item: T, to: string) =>
    act(item, async () => {
      await apiFetch(kind.path(item), { method: "PATCH", body: { owner_id: to, paused: false } });
      return kind.reassigned(item, users?.find((u) => u.id === to)?.email ?? "its new owner");
    });
  const remove = (item: T) => {
    if (!window.confirm(kind.confirmDelete(item))) return;
    void act(item, async () => {
      await apiFetch(kind.path(item), { method: "DELETE" });
      return kind.deleted(item);
    });
  };

  if (items.length === 0) return <p className="text-sm text-slate-700">{kind.empty}</p>;
  return (
    <div className="flex flex-col gap-3">
      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <ul aria-label={kind.label} className="flex flex-col gap-3">
        {items.map((item) => {
          const isBusy = busy === item.id;
          return (
            <li key={item.id} className={`rounded-md border bg-white p-4 ${item.paused ? "border-dashed border-slate-400" : "border-slate-300"}`}>
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  <h3 className="text-base font-semibold text-slate-900">
                    {kind.title(item)}{" "}
                    <span className={`ml-1 rounded px-1.5 py-0.5 text-xs font-medium ${item.paused ? "bg-slate-200 text-slate-900" : "bg-emerald-100 text-emerald-900"}`}>
                      {item.paused ? pausedLabel(item.pausedReason) : "Active"}
                    </span>
                  </h3>
                  {kind.byline(item)}
                  {item.paused && reassignable(item.pausedReason) && item.ownerId !== selfId ? (
                    <ReassignControl name={kind.reassignName(item)} ownerId={item.ownerId} users={users} busy={isBusy} onReassign={(to) => void reassign(item, to)} />
                  ) : null}
                </div>
                <div className="flex flex-wrap gap-2">
                  {kind.actions({ busy: isBusy, act: (fn) => act(item, fn), item })}
                  <Button size="sm" disabled={isBusy} aria-label={kind.pauseLabel(item)} onClick={() => void togglePause(item)}>
                    {item.paused ? "Resume" : "Pause"}
                  </Button>
                  <Button size="sm" disabled={isBusy} aria-expanded={editing === item.id} aria-label={kind.editLabel(item)} onClick={() => setEditing(editing === item.id ? null : item.id)}>
                    Edit
                  </Button>
                  <Button size="sm" variant="danger" disabled={isBusy} aria-label={kind.deleteLabel(item)} onClick={() => remove(item)}>
                    Delete
                  </Button>
                </div>
              </div>
              <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm text-slate-900 sm:grid-cols-[max-content_1fr]">
                {kind.details(item).map(({ term, description, wrap }) => (
                  <Fragment key={term}>
                    <dt className="font-medium">{term}</dt>
                    <dd className={wrap ? "break-words" : undefined}>{description}</dd>
                  </Fragment>
                ))}
              </dl>
              {kind.after(item)}
              {editing === item.id ? (
                <div className="mt-4 rounded-md border border-slate-300 bg-slate-50 p-4">
                  <h4 className="mb-3 text-sm font-semibold text-slate-900">{kind.editTitle(item)}</h4>
                  {kind.editor(
                    item,
                    (message) => {
                      setEditing(null);
                      onChanged(message);
                    },
                    () => setEditing(null),
                  )}
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
