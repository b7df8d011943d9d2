/**
 * What fetching a report is given and what it tells as it goes, apart from the fetcher (./fetcher.ts)
 * and the jobs that show it (./jobs.ts), so that neither needs the other.
 */
import type { Operation } from "@/lib/contract";
import type { QueueTicket } from "./quota";
import type { ReportQuery } from "./records";

/**
 * Which upstream call of the report this is (1-based) and how many it needs: exact once every
 * date-range part has answered its first page, otherwise the least it can be.
 */
export interface CallProgress {
  call: number;
  calls: number;
  calls_exact: boolean;
}

/** Where one page stands within the report: its page of its piece of the range. */
export interface PieceProgress {
  page: number;
  pages: number | null;
  piece: number;
  pieces: number;
}

/**
 * What a fetch tells its listener, in order, for each call: the call is waiting for its turn
 * ("queued"), the queue's ticket for it while it waits and null once its turn has come ("ticket"),
 * and the call is on its way ("fetching").
 */
export type FetchProgress =
  | { state: "queued"; calls: CallProgress }
  | { state: "ticket"; ticket: QueueTicket | null }
  | ({ state: "fetching" } & PieceProgress & { calls: CallProgress });

/** The report to fetch and who asks for it. */
export interface FetchRequest {
  readonly op: Operation;
  readonly query: ReportQuery;
  /** Queue owner the next call waits under; read before every call, as it may change (a person taking over a background job). */
  owner(): string;
  /** Aborted on cancellation: no further call is made, and a call waiting for the shared window stops waiting. */
  readonly signal: AbortSignal;
}
