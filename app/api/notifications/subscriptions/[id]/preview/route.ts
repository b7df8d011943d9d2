// GET /api/notifications/subscriptions/:id/preview: the e-mails the next issue would be (owner or admin), built as a send builds them, sending nothing; 202 with the queue place while its report waits.
import { apiRoute } from "@/lib/core/route/handler";
import { notifyDeps, previewSubscription } from "@/lib/features/notifications/slots";

export const GET = apiRoute({ role: "analyst", params: ["id"], feature: notifyDeps }, async ({ user, params, feature: deps }) => {
  const preview = await previewSubscription(deps, user, params.id);
  if (preview.kind === "pending") return Response.json({ preview }, { status: 202, headers: { "Retry-After": String(preview.retryAfterSeconds), "Cache-Control": "no-store" } });
  return Response.json({ preview }, { headers: { "Cache-Control": "no-store" } });
});
