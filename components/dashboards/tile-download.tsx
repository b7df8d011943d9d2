"use client";
import { downloadText } from "@/lib/report/table/csv";
import { tileCsv, tileCsvSource, type TileCsvContext, type TileCsvSource } from "@/lib/features/dashboards/tile-csv";
import type { TileAnswer } from "@/lib/features/dashboards/run";
import type { Filters } from "@/lib/report/state/filters";
import { describeFilters } from "@/lib/report/state/describe-filters";
import { Button } from "@/components/ui/button";

/** A table or pivot tile's CSV download, named after the tile (lib/features/dashboards/tile-csv.ts). */
export function TileDownload({ source }: { source: TileCsvSource }) {
  return (
    <div className="print:hidden">
      <Button size="sm" aria-label={`Download CSV of ${source.title}`} onClick={() => downloadText(`${source.fileName}.csv`, tileCsv(source))}>
        Download CSV
      </Button>
    </div>
  );
}

/** On the dashboard page: a drawn table, pivot or retention tile's download; nothing for the others. */
export function DashboardTileDownload({ tile, context, filters }: { tile: TileAnswer; context: Omit<TileCsvContext, "filters">; filters: Filters }) {
  const source = tileCsvSource(tile, { ...context, filters: describeFilters(filters) });
  return source ? <TileDownload source={source} /> : null;
}
