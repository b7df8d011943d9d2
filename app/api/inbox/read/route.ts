// POST /api/inbox/read {id?}: marks one of the user's messages read, or all of them without an id.
import { z } from "zod";
import { apiRoute } from "@/lib/core/route/handler";
import { getStore } from "@/lib/core/store";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";

const ReadInput = z.strictObject({ id: z.int().positive().optional() });

export const POST = apiRoute({ role: "viewer", schema: ReadInput }, async ({ user, body }) => {
  const inbox = inboxRepo(await getStore());
  const marked = await inbox.markRead(user.id, body.id ?? null);
  return { marked, unread: await inbox.unread(user.id) };
});
