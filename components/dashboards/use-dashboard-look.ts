/**
 * The dashboard the URL holds and the server's answer for it: the URL's look (parsed by the state
 * code once it has come), the look query that asks again until every tile is drawn, and the code the
 * answer will need (the grid, the fetch panel, a chart tile's), fetched beside it.
 */
import { useCallback, useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { getQueryClient } from "@/lib/core/api-client/query-client";
import { dashboardQuery } from "@/lib/features/dashboards/look-query";
import type { DashboardLook } from "@/lib/report/state/dashboard";
import type { DashboardAnswer } from "@/lib/features/dashboards/answer";
import { useLazyUrlLook, type UrlLooks } from "@/components/report/use-url-look";
import { preloadTileChart } from "./lazy-tile-chart";
import { DashboardGrid, FetchPanel } from "./lazy-parts";

// The dashboard's state code (its URL's parser and writer, the tiles' arranging, and through them the
// metrics' catalog, the KPI registry and both report pages' URL state) is not in the page's first
// load: the server hands the page its URL's look, parsed by that same code, and the page
// loads the code when it first needs it: to edit, to apply settings, or for a URL the server did not
// look at (one written by this page, or read back by back and forward).
export type StateLib = typeof import("@/lib/report/state/dashboard");
let stateLib: Promise<StateLib> | null = null;
const loadStateLib = () => (stateLib ??= import("@/lib/report/state/dashboard"));

/** The server's look at the URL the page opens with (lib/report/state/dashboard.ts, dashboardLook). */
export type DashboardLooks = UrlLooks<DashboardLook>;

/** The server's first look at the dashboard the page opens with (lib/features/dashboards/service.ts). */
export interface FirstLook {
  params: string;
  answer: DashboardAnswer;
}

export function useDashboardLook({
  looks,
  today,
  saved,
  first,
  canBuild,
}: {
  looks: DashboardLooks;
  today: string;
  saved: { id: string; params: string } | null;
  first: FirstLook | null;
  canBuild: boolean;
}) {
  const savedParams = saved?.params ?? null;
  const lookAt = useCallback((l: StateLib, search: string) => l.dashboardLook(search, today, savedParams), [today, savedParams]);
  const { look, write, code: lib, withCode: withLib } = useLazyUrlLook(looks, loadStateLib, lookAt);
  // A URL naming no dashboard was redirected by the server to the saved (or starter) one's
  // (lib/report/state/dashboard.ts, starterQuery), so the page never writes its URL on its own.
  const { params, state } = look;

  // The server's look at these very settings, drawn into the page's HTML, is where the entry starts.
  const answer = useQuery(dashboardQuery(params, saved?.id ?? null, first !== null && first.params === params ? first.answer : undefined), getQueryClient());
  const asked = params !== null;
  useEffect(() => {
    if (!asked) return;
    DashboardGrid.preload();
    if (canBuild) FetchPanel.preload();
  }, [asked, canBuild]);
  // A chart tile's code is fetched beside its answer, not after it.
  const hasChart = state.tiles.some((t) => t.kind === "chart");
  useEffect(() => {
    if (hasChart) preloadTileChart();
  }, [hasChart]);

  return { look, write, lib, withLib, answer };
}
