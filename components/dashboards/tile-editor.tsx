"use client";
/**
 * One tile's settings: its kind, width, title, what it keeps from its own report (pins), and the
 * report itself: picked with Explore's own metric, grouping, filter and chart pickers, or pasted as
 * an Explore or Cohorts link (the link's text and the pickers follow each other). Nothing is applied
 * until the tile parses exactly; each problem is named.
 */
import { useEffect, useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { ColumnsPicker, type ColumnOptions } from "@/components/explore/columns-picker";
import { GroupByPicker } from "@/components/explore/group-by-picker";
import { FilterEditor } from "@/components/report/filter-editor";
import { parseExplore, serializeExplore, type ExploreState, CHART_KINDS, CHART_LABELS, type ChartKind } from "@/lib/report/state/explore";
import {
  MAX_TITLE_LENGTH,
  TILE_KINDS,
  TILE_KIND_LABELS,
  TILE_WIDTHS,
  encodeTile,
  parseTile,
  type Tile,
  type TileKind,
  type TilePins,
} from "@/lib/report/state/dashboard";

const PIN_LABELS: Record<keyof TilePins, string> = {
  range: "its own date range",
  grain: "its own time grain",
  compare: "its own comparison",
  filters: "only its own filters",
};

/** A pasted Explore or Cohorts link, or just its query string. */
export function reportParamsFrom(text: string): string {
  const t = text.trim();
  const q = t.indexOf("?");
  return q >= 0 ? t.slice(q + 1) : t;
}

/**
 * The tile the editor's settings not yet applied make, for the page to apply together with whatever
 * is closing the editor; null (the problems shown in the editor) when they do not parse.
 */
export type ApplyPending = () => Tile | null;

export function TileEditor({
  tile,
  index,
  onApply,
  onCancel,
  onPending,
  columns,
}: {
  tile: Tile;
  index: number;
  onApply: (t: Tile) => void;
  onCancel: () => void;
  /** Told whenever the editor holds settings not yet applied (with how to apply them), and null when it holds none. */
  onPending?: (apply: ApplyPending | null) => void;
  /** Explore's metric options (built by the page's server render); without them only the link is offered. */
  columns?: ColumnOptions;
}) {
  const id = useId();
  const [kind, setKind] = useState<TileKind>(tile.kind);
  const [width, setWidth] = useState(tile.width);
  const [title, setTitle] = useState(tile.title);
  const [pins, setPins] = useState<TilePins>(tile.pins);
  const [report, setReport] = useState(tile.report);
  const [problems, setProblems] = useState<string[]>([]);
  const builder = kind === "cohort" ? "/cohorts" : "/explore";
  // The pickers edit the report the link's text says, and write it back as that text.
  const explore = kind === "cohort" ? null : parseExplore(reportParamsFrom(report)).state;
  const pick = (p: Partial<ExploreState>) => {
    if (explore) setReport(serializeExplore({ ...explore, ...p }));
  };

  /** The tile the editor's settings make, or null (the problems shown) when they do not parse. */
  const settled = (): Tile | null => {
    const draft: Tile = { kind, width, title: title.trim(), pins, report: reportParamsFrom(report) };
    if (draft.title.includes("\n")) {
      setProblems(["A title is one line."]);
      return null;
    }
    const parsed = parseTile(encodeTile(draft), index);
    if (!parsed.tile || parsed.problems.length > 0) {
      setProblems(parsed.problems.map((p) => p.message));
      return null;
    }
    setProblems([]);
    return parsed.tile;
  };
  const apply = () => {
    const t = settled();
    if (t) onApply(t);
  };

  // What the editor shows against the tile it opened with: leaving the editor must not lose it unasked.
  const unapplied =
    kind !== tile.kind ||
    width !== tile.width ||
    title.trim() !== tile.title ||
    reportParamsFrom(report) !== tile.report ||
    (Object.keys(pins) as (keyof TilePins)[]).some((k) => pins[k] !== tile.pins[k]);
  useEffect(() => {
    onPending?.(unapplied ? settled : null);
  });
  useEffect(() => () => onPending?.(null), [onPending]);

  return (
    <section aria-labelledby={`${id}-h`} className="flex flex-col gap-3 rounded-md border border-blue-300 bg-blue-50 p-3">
      <h3 id={`${id}-h`} className="text-base font-semibold">
        Tile {index + 1} settings
      </h3>
      <div className="grid gap-3 sm:grid-cols-3">
        <Field id={`${id}-kind`} label="Shows">
          <Select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.target.value as TileKind)} options={TILE_KINDS.map((k) => ({ value: k, label: TILE_KIND_LABELS[k] }))} />
        </Field>
        <Field id={`${id}-width`} label="Width (columns of 4)">
          <Select id={`${id}-width`} value={String(width)} onChange={(e) => setWidth(Number(e.target.value) as Tile["width"])} options={TILE_WIDTHS.map((w) => ({ value: String(w), label: String(w) }))} />
        </Field>
        <Field id={`${id}-title`} label="Title" hint="Empty: named after what it shows.">
          <input id={`${id}-title`} className={inputClass} value={title} maxLength={MAX_TITLE_LENGTH} onChange={(e) => setTitle(e.target.value)} aria-describedby={`${id}-title-hint`} />
        </Field>
      </div>
      {explore && columns ? (
        <fieldset className="flex flex-col gap-3 rounded-md border border-blue-200 bg-white p-3" data-testid="tile-pickers">
          <legend className="px-1 text-sm font-medium text-slate-900">What it shows</legend>
          <div className="grid gap-4 lg:grid-cols-2">
            <ColumnsPicker options={columns} op={explore.op} metrics={explore.metrics} kpis={explore.kpis} onChange={(c) => pick(c)} />
            <GroupByPicker op={explore.op} value={explore.groupBy} onChange={(groupBy) => pick({ groupBy, ...(groupBy.includes("date") ? {} : { grain: "day" as const }) })} />
          </div>
          <FilterEditor op={explore.op} value={explore.filters} onChange={(filters) => pick({ filters })} />
          {kind === "chart" ? (
            <Field id={`${id}-chart`} label="Chart">
              <Select id={`${id}-chart`} value={explore.chart} onChange={(e) => pick({ chart: e.target.value as ChartKind })} options={CHART_KINDS.map((k) => ({ value: k, label: CHART_LABELS[k] }))} />
            </Field>
          ) : null}
        </fieldset>
      ) : null}
      <Field
        id={`${id}-report`}
        label={kind === "cohort" ? "Cohorts report (link or query string)" : "Explore report (link or query string)"}
        hint={
          <>
            Design it in{" "}
            <a className="text-blue-800 underline" href={`${builder}?${reportParamsFrom(report)}`} target="_blank" rel="noreferrer">
              {kind === "cohort" ? "Cohorts" : "Explore"}
            </a>{" "}
            and paste its link here{explore && columns ? ", or pick above" : ""}.
          </>
        }
      >
        <textarea id={`${id}-report`} className={`${inputClass} font-mono text-xs`} rows={3} value={report} onChange={(e) => setReport(e.target.value)} aria-describedby={`${id}-report-hint`} />
      </Field>
      <fieldset className="flex flex-col gap-1">
        <legend className="text-sm font-medium text-slate-900">Keep from the tile&apos;s own report, instead of the dashboard&apos;s</legend>
        <div className="flex flex-wrap gap-4">
          {(Object.keys(PIN_LABELS) as (keyof TilePins)[]).map((k) => (
            <label key={k} className="inline-flex items-center gap-2 text-sm text-slate-900">
              <input type="checkbox" checked={pins[k]} onChange={(e) => setPins({ ...pins, [k]: e.target.checked })} />
              {PIN_LABELS[k]}
            </label>
          ))}
        </div>
      </fieldset>
      {problems.length > 0 ? (
        <ul role="alert" className="list-disc pl-5 text-sm text-red-800">
          {problems.map((p, i) => (
            <li key={i}>{p}</li>
          ))}
        </ul>
      ) : null}
      <div className="flex gap-2">
        <Button variant="primary" onClick={apply}>
          Apply to tile {index + 1}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </section>
  );
}
