// POST /api/notifications/subscriptions/:id/send: sends the scheduled report's next issue now (owner or admin), without moving its schedule; 429 past the per-user allowance.
import { apiRoute } from "@/lib/core/route/handler";
import { ApiError } from "@/lib/contract/errors";
import { notifyDeps, sendSubscriptionNow } from "@/lib/features/notifications/slots";

export const POST = apiRoute({ role: "analyst", params: ["id"], feature: notifyDeps }, async ({ user, params, feature: deps }) => {
  try {
    return { sent: await sendSubscriptionNow(deps, user, params.id) };
  } catch (e) {
    // A limit the caller met (the allowance, the owner's rights, the daily mail) answers as itself.
    if (e instanceof ApiError) throw e;
    // The report could not be had in time: the caller did nothing wrong, and nothing was sent.
    throw new ApiError(503, e instanceof Error ? e.message : String(e));
  }
});
