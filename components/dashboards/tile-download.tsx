"use client";
import { downloadText } from "@/lib/report/table/browser-download";
import { dashboardQuestion, dashboardWorkbook, tileCsv, tileCsvSource, tileSheet, type DashboardQuestion, type TileCsvContext, type TileCsvSource } from "@/lib/features/dashboards/tile-csv";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { formatInstant } from "@/lib/report/metrics/format";
import type { DashboardAnswer, TileAnswer } from "@/lib/features/dashboards/answer";
import type { DashboardState } from "@/lib/report/state/dashboard";
import type { Filters } from "@/lib/report/state/filters";
import { describeFilters } from "@/lib/report/state/describe-filters";
import { Button } from "@/components/ui/button";

/** A tile's table as a one-sheet workbook: its lines on the question sheet, the sheet named by the tile. */
async function downloadTileXlsx(source: TileCsvSource): Promise<void> {
  const sheet = tileSheet(source);
  if (!sheet) return;
  const { downloadWorkbook } = await import("@/lib/report/table/xlsx-download");
  await downloadWorkbook(`${source.fileName}.xlsx`, singleTableBook(source.title, sheet));
}

/** A table or pivot tile's CSV and Excel downloads, named after the tile (lib/features/dashboards/tile-csv.ts). */
export function TileDownload({ source }: { source: TileCsvSource }) {
  return (
    <div className="flex flex-wrap gap-2 print:hidden">
      <Button size="sm" aria-label={`Download CSV of ${source.title}`} onClick={() => downloadText(`${source.fileName}.csv`, tileCsv(source))}>
        Download CSV
      </Button>
      <Button size="sm" aria-label={`Download Excel of ${source.title}`} onClick={() => void downloadTileXlsx(source)}>
        Download Excel
      </Button>
    </div>
  );
}

/**
 * The whole dashboard as one workbook: the question, then a sheet per drawn table, pivot and
 * retention tile, named by the tile. Disabled while no tile has a table to download.
 */
export function DashboardWorkbookButton({ sources, question, fileName }: { sources: readonly TileCsvSource[]; question: Omit<DashboardQuestion, "generatedAt">; fileName: string }) {
  const save = async () => {
    const { downloadWorkbook } = await import("@/lib/report/table/xlsx-download");
    await downloadWorkbook(`${fileName}.xlsx`, dashboardWorkbook(sources, { ...question, generatedAt: formatInstant(new Date().toISOString(), question.timeZone) }));
  };
  return (
    <Button size="sm" className="print:hidden" disabled={sources.length === 0} onClick={() => void save()} title="One workbook: the question, then one sheet per table, pivot and retention tile">
      Download dashboard as Excel
    </Button>
  );
}

/** On the dashboard page: a drawn table, pivot or retention tile's download; nothing for the others. */
export function DashboardTileDownload({ tile, context, filters }: { tile: TileAnswer; context: Omit<TileCsvContext, "filters">; filters: Filters }) {
  const source = tileCsvSource(tile, { ...context, filters: describeFilters(filters) });
  return source ? <TileDownload source={source} /> : null;
}

/** On the dashboard page: the whole dashboard's workbook, from the tiles drawn so far. */
export function DashboardWorkbookDownload({ answer, state, name, timeZone }: { answer: DashboardAnswer; state: DashboardState; name: string; timeZone: string }) {
  const context = { dashboard: name, timeZone, filters: describeFilters(state.filters) };
  const sources = answer.tiles.flatMap((t) => tileCsvSource(t, context) ?? []);
  const question = dashboardQuestion(state, { dashboard: name, today: answer.today, timeZone, generatedAt: "" });
  const fileName = `${name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "dashboard"}_${answer.today}`;
  return <DashboardWorkbookButton sources={sources} question={question} fileName={fileName} />;
}
