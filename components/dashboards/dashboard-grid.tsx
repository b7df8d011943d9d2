import type { ReactNode } from "react";
import type { DashboardAnswer } from "@/lib/features/dashboards/answer";
import type { TileWidth } from "@/lib/report/state/dashboard";
import { TileFrame } from "./tile-frame";

/**
 * The dashboard's tiles in order, on a grid of one column on a phone, two on `sm`, four on `lg`;
 * `widths[i]` is tile i's width on the wide grid (4, the whole row, when missing).
 */
export function DashboardGrid({
  answer,
  widths,
  timeZone,
  controls,
  footer,
  idPrefix,
}: {
  answer: DashboardAnswer;
  widths: readonly TileWidth[];
  timeZone: string;
  /** The header controls of tile i (0-based), e.g. the editor's move and resize buttons. */
  controls?: (index: number) => ReactNode;
  /** What goes at the foot of tile i (0-based), e.g. a link to its report. */
  footer?: (index: number) => ReactNode;
  idPrefix?: string;
}) {
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4" data-testid="dashboard-grid">
      {answer.tiles.map((t, i) => (
        <TileFrame key={t.index} answer={t} width={widths[i] ?? 4} timeZone={timeZone} controls={controls?.(i)} idPrefix={idPrefix}>
          {footer?.(i)}
        </TileFrame>
      ))}
    </div>
  );
}
