"use client";
import { lazyPart } from "@/components/ui/lazy-part";
import { StatusBanner } from "@/components/ui/status-banner";

/**
 * The routing workspace, loaded after the page: its editor, diffs, proposals and react-query are the
 * page's whole feature and over the first-load budget with the page. Until its code has come, the
 * page says what the workspace itself says while it reads the live configuration.
 */
export const RoutingWorkspace = lazyPart(
  () => import("./routing-workspace").then((m) => m.RoutingWorkspace),
  <StatusBanner tone="progress" label="Routing status" busy title="Loading" detail="Reading the live routing configuration…" />,
);
