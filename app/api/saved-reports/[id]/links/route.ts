// GET /api/saved-reports/:id/links: the report's share links with view counts; POST creates one (owner or admin).
import { apiRoute } from "@/lib/api/handler";
import { serverEnv } from "@/lib/env";
import { issueShareLink, listShareLinks, ShareLinkInput } from "@/lib/sharing/links";
import { getStore } from "@/lib/store";
import { getGateway } from "@/lib/upstream";

export const GET = apiRoute({ role: "analyst", params: ["id"] }, async ({ user, params }) => listShareLinks(await getStore(), user, params.id));

export const POST = apiRoute({ role: "analyst", params: ["id"], schema: ShareLinkInput }, async ({ user, params, body, request }) =>
  Response.json(await issueShareLink(await getStore(), getGateway(), serverEnv().REPORT_TIMEZONE, user, params.id, body, request.url), { status: 201 }),
);
