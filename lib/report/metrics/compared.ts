/**
 * The ids of a measure's comparison columns, apart from table.ts (re-exported there), so the URL
 * state can name them without loading the table builder, the catalog's labels and formatting.
 */

/** The id of a measure's comparison columns: `revenue~cmp`, `revenue~chg`, `revenue~pct`. */
export const COMPARED_SUFFIXES = ["cmp", "chg", "pct"] as const;
export const comparedId = (measure: string, part: (typeof COMPARED_SUFFIXES)[number]) => `${measure}~${part}`;
