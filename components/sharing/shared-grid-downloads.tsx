"use client";
import { gridSheet, gridToCsv } from "@/lib/features/cohorts/csv";
import type { CohortGrid } from "@/lib/features/cohorts/grid";
import { downloadText } from "@/lib/report/table/browser-download";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { Button } from "@/components/ui/button";

async function downloadGridXlsx(grid: CohortGrid, meta: [string, string][], fileName: string): Promise<void> {
  const { downloadWorkbook } = await import("@/lib/report/table/xlsx-download");
  await downloadWorkbook(`${fileName}.xlsx`, singleTableBook("Cohorts", gridSheet(grid, { lines: meta })));
}

/** A shared retention grid's downloads: the annotated CSV (with what the link shows), the data only, a workbook. */
export function SharedGridDownloads({ grid, meta, fileName }: { grid: CohortGrid; meta: [string, string][]; fileName: string }) {
  return (
    <div className="flex flex-wrap gap-2 print:hidden">
      <Button size="sm" onClick={() => downloadText(`${fileName}.csv`, gridToCsv(grid, { lines: meta }))}>
        Download CSV
      </Button>
      <Button size="sm" onClick={() => downloadText(`${fileName}_data.csv`, gridToCsv(grid, null))} title="Header row first, one row per cohort">
        Data only CSV
      </Button>
      <Button size="sm" onClick={() => void downloadGridXlsx(grid, meta, fileName)}>
        Download Excel
      </Button>
    </div>
  );
}

/** Prints the page as shown; the print stylesheet leaves out the buttons. */
export function PrintPageButton({ label }: { label: string }) {
  return (
    <Button size="sm" className="print:hidden" onClick={() => window.print()}>
      {label}
    </Button>
  );
}
