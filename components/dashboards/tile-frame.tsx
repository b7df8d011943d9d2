import type { ReactNode } from "react";
import type { TileAnswer } from "@/lib/features/dashboards/answer";
import type { TileWidth } from "@/lib/report/state/dashboard";
import { formatInstant } from "@/lib/report/metrics/format";
import { queuePosition, queueWordsAt } from "@/lib/report/client/queue-words";
import { cn } from "@/components/ui/cn";
import { TileBodyView } from "./tile-view";

/**
 * Columns a tile spans: one on a phone; on `sm` (2 columns) a tile wider than half the wide grid
 * takes the row; on `lg` (4 columns) its own width. Whole class names, so Tailwind sees them.
 */
export const TILE_SPAN: Record<TileWidth, string> = {
  1: "lg:col-span-1",
  2: "sm:col-span-2 lg:col-span-2",
  3: "sm:col-span-2 lg:col-span-3",
  4: "sm:col-span-2 lg:col-span-4",
};

/**
 * Where a pending tile's query stands, in Explore's words; the estimate as a time of day, since the
 * tile is drawn on the server and again in the browser.
 */
export function pendingText(o: Extract<TileAnswer["outcome"], { status: "pending" }>, timeZone: string): string {
  if (o.position === null) return `Fetching query ${o.step}…`;
  if (o.estimated_start === null) return `Waiting for query ${o.step}: ${queuePosition(o.position)}.`;
  return `Waiting for query ${o.step}: ${queueWordsAt({ position: o.position, estimated_start: o.estimated_start }, timeZone)}.`;
}

/**
 * One tile of a dashboard: its title, then what it has: the picture (with the day its data is as of),
 * a calm placeholder while its query waits, or why it has none. `controls` sit in the header (the
 * editor's move and resize buttons); `children` at the foot (e.g. a link to the full report).
 */
export function TileFrame({
  answer,
  width,
  timeZone,
  controls,
  children,
  idPrefix = "dashboard-tile",
}: {
  answer: TileAnswer;
  width: TileWidth;
  timeZone: string;
  controls?: ReactNode;
  children?: ReactNode;
  /** Makes the title's id unique when one page shows two dashboards. */
  idPrefix?: string;
}) {
  const titleId = `${idPrefix}-${answer.index}-title`;
  const o = answer.outcome;
  return (
    <article
      aria-labelledby={titleId}
      data-tile={answer.index}
      data-kind={answer.kind}
      data-status={o.status}
      className={cn("flex min-w-0 flex-col gap-2 rounded-md border border-slate-200 bg-white p-3", TILE_SPAN[width])}
    >
      <header className="flex flex-wrap items-start justify-between gap-2">
        <h2 id={titleId} className="min-w-0 text-base font-semibold break-words text-slate-900">
          {answer.title}
        </h2>
        {controls ? <div className="flex shrink-0 flex-wrap items-center gap-1">{controls}</div> : null}
      </header>
      {answer.keeps.length > 0 ? (
        <ul aria-label="Settings this tile keeps" className="flex flex-wrap gap-1" data-testid="tile-keeps">
          {answer.keeps.map((k) => (
            <li key={k} className="rounded-full border border-slate-300 bg-slate-100 px-2 py-0.5 text-xs font-medium break-words text-slate-900">
              {k}
            </li>
          ))}
        </ul>
      ) : null}

      <div className="min-w-0 flex-1">
        {o.status === "done" ? (
          <TileBodyView body={o.model.body} timeZone={timeZone} label={answer.title} />
        ) : o.status === "pending" ? (
          <div
            role="status"
            className={cn(
              "flex items-center justify-center rounded-md border border-dashed border-slate-300 bg-slate-50 p-4 text-center text-sm text-slate-700",
              answer.kind === "kpi" ? "min-h-24" : "min-h-48",
            )}
          >
            <p>{pendingText(o, timeZone)}</p>
          </div>
        ) : o.status === "failed" ? (
          <p className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
            <span className="font-semibold">Could not load this tile: </span>
            {o.message}
          </p>
        ) : (
          <p className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
            <span className="font-semibold">Not run: </span>
            {o.message}
          </p>
        )}
      </div>

      {o.status === "done" || answer.notes.length > 0 ? (
        <footer className="flex flex-col gap-0.5 text-xs text-slate-700">
          {o.status === "done" ? (
            <>
              <p>
                {o.model.range.start} to {o.model.range.end}
                {o.model.periods ? ` · ${o.model.periods}` : ""}
              </p>
              <p>
                Data as of {formatInstant(o.fetched_at, timeZone)}
                {o.stale ? <span className="font-medium text-slate-800"> (updating…)</span> : null}
              </p>
            </>
          ) : null}
          {answer.notes.map((n) => (
            <p key={n}>{n}</p>
          ))}
        </footer>
      ) : null}
      {children}
    </article>
  );
}
