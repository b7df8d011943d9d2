/** The catalog's limits on a request (re-exported by ./catalog.ts, their home for every other file). */
export const LIMITS = {
  maxRangeDays: 100,
  /** The longest range the dashboard accepts; it splits it into calls of at most maxRangeDays. */
  maxDashboardRangeDays: 3660,
  maxGroupBy: 6,
  maxFilterValues: 100,
  maxPageSize: 1000,
  maxStringFilterLength: 256,
  maxBodyBytes: 64 * 1024,
} as const;
