// GET /api/mail/:id: one message the demo mail sink kept, by id (admins); 404 for anything else.
import { apiRoute } from "@/lib/core/route/handler";
import { ApiError } from "@/lib/contract/errors";
import { readSinkMessage, sinkFolder } from "@/lib/core/mail/sink-viewer";

export const GET = apiRoute({ role: "admin", params: ["id"] }, async ({ params, env }) => {
  const dir = sinkFolder(env);
  if (!dir) throw new ApiError(404, "Mail is not going to the demo mail sink, so there are no kept messages to read here");
  const message = readSinkMessage(dir, params.id);
  if (!message) throw new ApiError(404, "No such message");
  return Response.json({ message }, { headers: { "Cache-Control": "no-store" } });
});
