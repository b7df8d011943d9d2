/**
 * What running a dashboard answers, to its page, its share page and its exports: each tile's outcome
 * (its model, or where it waits, or why it failed) and the plan of upstream queries with where each
 * stands and how many calls it needs.
 */
import type { Operation } from "@/lib/contract";
import type { ReportQuery } from "@/lib/contract/schemas";
import type { TileSpec } from "./tile-spec";
import type { TileModel } from "./tiles";

/** Where one upstream query of the plan stands. */
export type QueryState =
  | { state: "cached"; fetched_at: string }
  | {
      state: "queued";
      position: number;
      estimated_start: string;
      /** When its last call should have answered. */
      estimated_done: string;
      /** Calls that start before its last one (everyone's, its own included); null when not known. */
      last_position: number | null;
    }
  | { state: "fetching"; estimated_done: string | null; last_position: number | null }
  | { state: "done"; fetched_at: string }
  | { state: "failed"; message: string };

export interface PlanStep {
  op: Operation;
  query: ReportQuery;
  /**
   * Upstream calls it needs (0 from cache): the planner's estimate until the service has said how
   * many records each part holds, then the count the fetch makes.
   */
  calls: number;
  /** Whether `calls` is the count the fetch makes (known, or made) rather than an estimate. */
  callsKnown: boolean;
  /** The planner's estimate for the query, before anything was fetched (0 from cache). */
  plannedCalls: number;
  /** The tiles it answers, by their 1-based place and title. */
  tiles: { index: number; title: string }[];
  status: QueryState;
}

export type TileOutcome =
  | { status: "done"; model: TileModel; fetched_at: string; stale: boolean }
  | { status: "pending"; step: number; position: number | null; estimated_start: string | null }
  | { status: "failed"; message: string }
  | { status: "conflict"; message: string };

export interface TileAnswer {
  index: number;
  title: string;
  kind: TileSpec["kind"];
  notes: string[];
  /** What the tile keeps of its own instead of the dashboard's settings, one badge each. */
  keeps: string[];
  outcome: TileOutcome;
}

export interface DashboardAnswer {
  today: string;
  tiles: TileAnswer[];
  plan: PlanStep[];
  /** Calls if every tile request were fetched on its own (what planning saved is naive − planned). */
  naiveCalls: number;
  plannedCalls: number;
  /** The oldest answer shown, for "data as of". */
  asOf: string | null;
}
