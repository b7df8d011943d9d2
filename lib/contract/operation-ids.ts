/**
 * The reporting operations' ids. Declared here and re-exported by the catalog (their home for every
 * other file), so the operation table, which the browser's API client reads on every page that
 * calls the API, does not bring every dimension and metric with it (about 6 KB gzipped).
 */
export const OPERATIONS = ["orders", "cohort"] as const;
export type Operation = (typeof OPERATIONS)[number];
