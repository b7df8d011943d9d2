// GET /api/saved-reports/:id/links: the report's share links with view counts; POST creates one (owner or admin).
import { apiRoute } from "@/lib/core/route/handler";
import { issueShareLink, listShareLinks, ShareLinkInput } from "@/lib/features/sharing/links";

export const GET = apiRoute({ role: "analyst", store: true, params: ["id"] }, async ({ user, params, store }) => listShareLinks(store, user, params.id));

export const POST = apiRoute({ role: "analyst", store: true, gateway: true, params: ["id"], schema: ShareLinkInput }, async ({ user, params, body, request, store, env, gateway }) =>
  Response.json(await issueShareLink(store, gateway, env.REPORT_TIMEZONE, user, params.id, body, request.url), { status: 201 }),
);
