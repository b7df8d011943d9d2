/**
 * The Cohorts grid's settings: their enumerations and limits (re-exported by ./cohort.ts), apart from
 * the URL's parser and writer, which the page's first paint does not load (the server
 * parses the URL the page opens with, ./cohort-look.ts).
 */
export const COHORT_ROWS = ["day", "week", "month"] as const;
export type CohortRows = (typeof COHORT_ROWS)[number];

export const COHORT_CELLS = ["retention", "previous", "revenue", "ltv"] as const;
export type CohortCell = (typeof COHORT_CELLS)[number];

export const COHORT_LIMITS = {
  cycles: { min: 1, max: 36, default: 12 },
  trialDays: { min: 0, max: 90, default: 14 },
  periodDays: { min: 1, max: 366, default: 30 },
} as const;
