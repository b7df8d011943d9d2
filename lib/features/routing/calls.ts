import "server-only";
/**
 * The routing workspace's preview of a list of BINs, a call a user makes one at a time, counted
 * against their share of the dashboard's routing bucket at the service first
 * (lib/core/upstream/routing-allowance.ts; the BIN lookup's calls are counted the same way,
 * lib/features/bin-lookup/calls.ts).
 */
import { RoutingPreviewRequestSchema, type RoutingPreview } from "@/lib/contract/bin-routing";
import { previewRouting } from "./upstream";
import { deeperThan, MAX_CONFIG_DEPTH } from "./requests";
import { takeCall, type WorkspaceDeps } from "./workspace";

/** The preview route's body: the contract's, with a configuration no deeper than any real one. */
export const PreviewRequest = RoutingPreviewRequestSchema.superRefine((body, ctx) => {
  if (deeperThan(body.config, MAX_CONFIG_DEPTH)) {
    ctx.addIssue({ code: "custom", path: ["config"], message: `config is nested deeper than ${MAX_CONFIG_DEPTH} levels; a routing configuration is never that deep` });
  }
});

/** What routing would answer for each BIN under the live and a proposed configuration: one call, counted against `user`. */
export async function previewFor(deps: WorkspaceDeps, user: { id: string }, body: (typeof PreviewRequest)["_output"]): Promise<RoutingPreview> {
  await takeCall(deps, user, { kind: "preview", bins: body.bins.length });
  return previewRouting(body, deps.clients);
}
