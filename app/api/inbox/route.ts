// GET /api/inbox: the signed-in user's messages from alerts and scheduled reports, and how many are unread.
import { apiRoute } from "@/lib/api/handler";
import { getStore } from "@/lib/store";
import { inboxRepo } from "@/lib/store/inbox";

export const GET = apiRoute({ role: "viewer" }, async ({ user }) => {
  const inbox = inboxRepo(await getStore());
  return Response.json({ messages: await inbox.list(user.id), unread: await inbox.unread(user.id) }, { headers: { "Cache-Control": "no-store" } });
});
