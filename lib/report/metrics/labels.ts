/**
 * The tables' fixed labels, apart from table.ts and pivot.ts (which re-export them), so a view that
 * draws models built elsewhere (a dashboard's tiles, built by the server) does not load the builders.
 */

/** The rows table's last row. */
export const TOTALS_LABEL = "Totals";
/** The pivot's total row and column. */
export const TOTAL_LABEL = "Total";
