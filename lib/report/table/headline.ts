/**
 * A report's headline figures: each measure it asks for, over the whole range (the table's totals
 * row: sums, and KPIs as ratios of the sums), with its change against the comparison when there is
 * one, worded as the table words them. What a reader on a phone sees before the chart and the table.
 */
import { comparedId } from "@/lib/report/metrics/compared";
import type { TableCell, TableModel } from "./table";

export interface HeadlineFigure {
  id: string;
  label: string;
  /** The total as the table shows it, and what it abbreviates (its note), if anything. */
  value: Pick<TableCell, "text" | "note">;
  /** The compared total's column label ("Revenue (previous 30 days)") and its value; null without a comparison. */
  compared: { label: string; text: string } | null;
  /** The change(s): the difference (and the % change for a sum), each with its verdict in words. */
  changes: Pick<TableCell, "text" | "tone" | "note">[];
}

export function headlineFigures(table: Pick<TableModel, "columns" | "totals">): HeadlineFigure[] {
  const at = new Map(table.columns.map((c, i) => [c.id, i]));
  const cell = (id: string): TableCell | undefined => {
    const i = at.get(id);
    return i === undefined ? undefined : table.totals.cells[i];
  };
  return table.columns.flatMap((c, i) => {
    if (c.kind !== "metric" && c.kind !== "kpi") return [];
    const total = table.totals.cells[i];
    if (!total) return [];
    const cmpIndex = at.get(comparedId(c.id, "cmp"));
    const cmpCell = cmpIndex === undefined ? undefined : table.totals.cells[cmpIndex];
    const changes = (["chg", "pct"] as const).flatMap((part) => {
      const ch = cell(comparedId(c.id, part));
      return ch ? [{ text: ch.text, ...(ch.tone ? { tone: ch.tone } : {}), ...(ch.note ? { note: ch.note } : {}) }] : [];
    });
    return [
      {
        id: c.id,
        label: c.label,
        value: { text: total.text, ...(total.note ? { note: total.note } : {}) },
        compared: cmpIndex !== undefined && cmpCell ? { label: table.columns[cmpIndex]!.label, text: cmpCell.text } : null,
        changes,
      },
    ];
  });
}
