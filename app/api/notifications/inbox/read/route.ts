// POST /api/notifications/inbox/read {id?}: marks one of the user's messages read, or all of them without an id.
import { z } from "zod";
import { apiRoute } from "@/lib/core/route/handler";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";

const ReadInput = z.strictObject({ id: z.int().positive().optional() });

export const POST = apiRoute({ role: "viewer", store: true, schema: ReadInput }, async ({ user, body, store }) => {
  const inbox = inboxRepo(store);
  const marked = await inbox.markRead(user.id, body.id ?? null);
  return { marked, unread: await inbox.unread(user.id) };
});
