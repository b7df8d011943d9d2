// POST /api/notifications/alerts/:id/evaluate: evaluates the rule now (owner or admin), tells what there is to tell, and answers the evaluation.
import { apiRoute } from "@/lib/core/route/handler";
import { getAlertRule } from "@/lib/features/notifications/alert-rules";
import { evaluateNow, notifyDeps } from "@/lib/features/notifications/slots";
import { ApiError } from "@/lib/contract/errors";

export const POST = apiRoute({ role: "analyst", params: ["id"], feature: notifyDeps }, async ({ user, params, feature: deps }) => {
  const rule = await getAlertRule(deps.db, user, params.id); // 404 unless the owner's or an admin's
  try {
    return { evaluation: await evaluateNow(deps, rule.id, user.id) };
  } catch (e) {
    // A limit the caller met (the run-now rate) answers as itself.
    if (e instanceof ApiError) throw e;
    // The reports could not be had (the error is recorded on the rule): the caller did nothing wrong.
    throw new ApiError(503, e instanceof Error ? e.message : String(e));
  }
});
