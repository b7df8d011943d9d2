/**
 * Editing the dashboard's tiles: whether editing is on, which tile's editor is open, and what happens
 * to settings the open editor holds but has not applied when something would close it (another
 * tile's editor, arranging, saving, a link away): the page asks first, and applies or discards them
 * as answered, so a change never drops them unasked.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { DashboardState } from "@/lib/report/state/dashboard";
import type { ApplyPending } from "./tile-editor";
import type { StateLib } from "./use-dashboard-look";

/**
 * What closing the tile editor does: `base` is the dashboard with the editor's settings applied
 * (`applied`) or as it is (nothing pending, or discarded); `l` the state code, there once editing.
 */
export type AfterLeaving = (base: DashboardState, applied: boolean, l: StateLib | null) => void;
/** A question put before the tile editor closes on settings not applied: which tile, what closes it, and what follows. */
interface Leaving {
  tile: number;
  doing: string;
  then: AfterLeaving;
}

export function useTileEditing({
  state,
  lib,
  write,
  navigate,
}: {
  state: DashboardState;
  lib: StateLib | null;
  write: (search: string, how: "push" | "replace") => void;
  /** Opens a path of this site (the router's push). */
  navigate: (href: string) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [editingTile, setEditingTile] = useState<number | null>(null);
  // The open tile editor's settings not yet applied, and what was about to close it meanwhile.
  const pendingTile = useRef<ApplyPending | null>(null);
  const onPending = useCallback((apply: ApplyPending | null) => {
    pendingTile.current = apply;
  }, []);
  const [leaving, setLeaving] = useState<Leaving | null>(null);
  // Discarded settings leave the editor: it opens again on what its tile holds.
  const [editorRound, setEditorRound] = useState(0);
  /**
   * Does `then` (which closes the editor, or changes the dashboard under it), asking first when the
   * open editor holds settings not applied: `then` gets the dashboard with them applied, or as it
   * is when they are discarded, so the change never drops them unasked.
   */
  const leaveTileEditor = (doing: string, then: AfterLeaving) => {
    if (pendingTile.current && editingTile !== null) setLeaving({ tile: editingTile, doing, then });
    else then(state, false, lib);
  };
  // Leaving the page by a link asks too; a reload, a typed address or closing the tab gets the
  // browser's own question.
  useEffect(() => {
    if (editingTile === null) return;
    const onClick = (e: MouseEvent) => {
      if (!pendingTile.current || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!(a instanceof HTMLAnchorElement) || (a.target !== "" && a.target !== "_self") || a.hasAttribute("download")) return;
      const to = new URL(a.href, window.location.href);
      if (to.origin === window.location.origin && to.pathname === window.location.pathname && to.search === window.location.search) return;
      // Before the link's own handler (the router's) sees the click.
      e.preventDefault();
      e.stopPropagation();
      setLeaving({
        tile: editingTile,
        doing: "this page is left",
        then: (base, applied, l) => {
          if (applied && l) write(l.serializeDashboard(base), "push");
          if (to.origin === window.location.origin) navigate(`${to.pathname}${to.search}${to.hash}`);
          else window.location.assign(to.href);
        },
      });
    };
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (pendingTile.current) e.preventDefault();
    };
    window.addEventListener("click", onClick, true);
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => {
      window.removeEventListener("click", onClick, true);
      window.removeEventListener("beforeunload", onBeforeUnload);
    };
  }, [editingTile, navigate, write]);

  /** "Keep editing": the question goes, the editor stays as it is. */
  const keepEditing = () => setLeaving(null);
  /** "Discard them": the editor opens again on what its tile holds, and what was asked goes ahead. */
  const discardPending = () => {
    const next = leaving;
    setLeaving(null);
    pendingTile.current = null;
    setEditorRound((r) => r + 1);
    next?.then(state, false, lib);
  };
  /** "Apply them": what was asked goes ahead on the dashboard with the editor's settings applied. */
  const applyPending = () => {
    const next = leaving;
    setLeaving(null);
    // Settings that do not parse stay in the editor with their problems named.
    const tile = pendingTile.current?.() ?? null;
    if (!next || !tile || !lib) return;
    next.then(lib.updateTile(state, next.tile, tile), true, lib);
  };

  return { editing, setEditing, editingTile, setEditingTile, onPending, editorRound, leaving, leaveTileEditor, keepEditing, discardPending, applyPending };
}
