// GET /api/notifications/inbox: the signed-in user's messages from alerts and scheduled reports, and how many are unread.
import { apiRoute } from "@/lib/core/route/handler";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";

export const GET = apiRoute({ role: "viewer", store: true }, async ({ user, store }) => {
  const inbox = inboxRepo(store);
  return Response.json({ messages: await inbox.list(user.id), unread: await inbox.unread(user.id) }, { headers: { "Cache-Control": "no-store" } });
});
