// GET /api/mail: the messages the demo mail sink kept, newest first (admins); 404 when mail goes to a real mail server.
import { apiRoute } from "@/lib/core/route/handler";
import { ApiError } from "@/lib/contract/errors";
import { listSinkMessages, sinkFolder } from "@/lib/core/mail/sink-viewer";

export const GET = apiRoute({ role: "admin" }, async ({ env }) => {
  const dir = sinkFolder(env);
  if (!dir) throw new ApiError(404, "Mail is not going to the demo mail sink, so there are no kept messages to read here");
  return Response.json({ messages: listSinkMessages(dir) }, { headers: { "Cache-Control": "no-store" } });
});
