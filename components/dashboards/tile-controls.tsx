"use client";
/**
 * A tile's arranging buttons while editing: move earlier or later, narrower or wider, open its editor,
 * remove it. Each change is made on the dashboard with the open editor's pending settings applied (or
 * discarded) as answered, and the editor stays on its tile wherever the tile goes.
 */
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import type { DashboardState, Tile } from "@/lib/report/state/dashboard";
import type { Change, FocusTarget } from "./use-arranging";
import type { StateLib } from "./use-dashboard-look";
import type { AfterLeaving } from "./use-tile-editing";

interface Arranging {
  state: DashboardState;
  /** The state code while editing; null draws no controls. */
  lib: StateLib | null;
  editingTile: number | null;
  setEditingTile: (f: number | null | ((at: number | null) => number | null)) => void;
  leaveTileEditor: (doing: string, then: AfterLeaving) => void;
  change: Change;
}

/** The controls of tile `i`, for the grid. */
export function tileControls({ state, lib: l, editingTile, setEditingTile, leaveTileEditor, change }: Arranging): (i: number) => ReactNode {
  /** A change to the tiles; the editor follows its tile (`follow` says where it went; null when it is gone). */
  const arrange = (l: StateLib, doing: string, make: (base: DashboardState) => DashboardState, note: string, focus?: FocusTarget, follow: (at: number) => number | null = (at) => at) =>
    leaveTileEditor(doing, (base) => {
      change(l, make(base), note, focus);
      setEditingTile((at) => (at === null ? null : follow(at)));
    });
  return function controlsOf(i: number) {
    // While the next answer loads the previous one stays on screen, and may have more tiles than the URL now holds.
    const t = state.tiles[i];
    if (!l || !t) return null;
    const n = state.tiles.length;
    // Tiles i and j trade places: the editor follows its tile.
    const swap = (j: number) => (at: number) => (at === i ? j : at === j ? i : at);
    const widen = (by: 1 | -1) => (base: DashboardState) => l.updateTile(base, i, { width: ((base.tiles[i]?.width ?? t.width) + by) as Tile["width"] });
    return (
      <div className="flex flex-wrap gap-1" role="group" aria-label={`Arrange tile ${i + 1}`}>
        <Button size="sm" aria-label={`Move tile ${i + 1} earlier`} disabled={i === 0} onClick={() => arrange(l, `tile ${i + 1} moves`, (base) => l.moveTile(base, i, i - 1), `Tile moved to place ${i}.`, { label: `Move tile ${i} earlier`, fallback: `Edit tile ${i}` }, swap(i - 1))}>
          ←
        </Button>
        <Button size="sm" aria-label={`Move tile ${i + 1} later`} disabled={i === n - 1} onClick={() => arrange(l, `tile ${i + 1} moves`, (base) => l.moveTile(base, i, i + 1), `Tile moved to place ${i + 2}.`, { label: `Move tile ${i + 2} later`, fallback: `Edit tile ${i + 2}` }, swap(i + 1))}>
          →
        </Button>
        <Button size="sm" aria-label={`Make tile ${i + 1} narrower`} disabled={t.width === l.TILE_WIDTHS[0]} onClick={() => arrange(l, `tile ${i + 1} gets narrower`, widen(-1), `Tile ${i + 1} is ${t.width - 1} columns wide.`, { label: `Make tile ${i + 1} narrower`, fallback: `Make tile ${i + 1} wider` })}>
          −
        </Button>
        <Button size="sm" aria-label={`Make tile ${i + 1} wider`} disabled={t.width === 4} onClick={() => arrange(l, `tile ${i + 1} gets wider`, widen(1), `Tile ${i + 1} is ${t.width + 1} columns wide.`, { label: `Make tile ${i + 1} wider`, fallback: `Make tile ${i + 1} narrower` })}>
          +
        </Button>
        <Button
          size="sm"
          aria-label={`Edit tile ${i + 1}`}
          aria-expanded={editingTile === i}
          onClick={() =>
            leaveTileEditor(editingTile === i ? `its editor closes` : `tile ${i + 1}'s editor opens`, (base, applied) => {
              if (applied) change(l, base, `Tile ${(editingTile ?? i) + 1} updated.`);
              setEditingTile(editingTile === i ? null : i);
            })
          }
        >
          Edit
        </Button>
        <Button
          size="sm"
          variant="danger"
          aria-label={`Remove tile ${i + 1}`}
          onClick={() => {
            const remove = (base: DashboardState) => {
              change(l, l.removeTile(base, i), `Tile ${i + 1} removed.`, { label: `Remove tile ${Math.min(i + 1, n - 1)}`, fallback: "Edit tiles" });
              setEditingTile((at) => (at === null || at === i ? null : at > i ? at - 1 : at));
            };
            // The tile being edited goes with its editor's settings: only another tile's are asked about.
            if (editingTile === i) remove(state);
            else leaveTileEditor(`tile ${i + 1} is removed`, remove);
          }}
        >
          Remove
        </Button>
      </div>
    );
  };
}
