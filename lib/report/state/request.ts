/**
 * What every report request built from a page's state starts from. Built the same way every time
 * (metrics in catalog order, filter keys in catalog order, values sorted), so it doubles as the query key.
 */
import type { Operation } from "@/lib/contract/operations";
import type { ReportQuery } from "@/lib/contract/schemas";
import { requestFilters, type Filters } from "./filters";
import { resolveRange, type RangeSelection } from "./range";

export interface ReportRequestSpec {
  op: Operation;
  request: ReportQuery;
}

/** The range resolved against today, and the filters in the request's form (omitted when none). */
export function requestBase(range: RangeSelection, today: string, filters: Filters): Pick<ReportQuery, "start_date" | "end_date" | "filters"> {
  const r = resolveRange(range, today);
  const f = requestFilters(filters);
  return { start_date: r.start, end_date: r.end, ...(f ? { filters: f } : {}) };
}
