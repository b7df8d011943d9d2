// GET /api/inbox: the signed-in user's messages from alerts and scheduled reports, and how many are unread.
import { apiRoute } from "@/lib/core/route/handler";
import { getStore } from "@/lib/core/store";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";

export const GET = apiRoute({ role: "viewer" }, async ({ user }) => {
  const inbox = inboxRepo(await getStore());
  return Response.json({ messages: await inbox.list(user.id), unread: await inbox.unread(user.id) }, { headers: { "Cache-Control": "no-store" } });
});
