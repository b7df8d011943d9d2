// GET /api/saved-reports/:id/links: the report's share links with view counts; POST creates one (owner or admin).
import { apiRoute } from "@/lib/core/route/handler";
import { serverEnv } from "@/lib/core/env/env";
import { issueShareLink, listShareLinks, ShareLinkInput } from "@/lib/features/sharing/links";
import { getStore } from "@/lib/core/store";
import { getGateway } from "@/lib/core/upstream";

export const GET = apiRoute({ role: "analyst", params: ["id"] }, async ({ user, params }) => listShareLinks(await getStore(), user, params.id));

export const POST = apiRoute({ role: "analyst", params: ["id"], schema: ShareLinkInput }, async ({ user, params, body, request }) =>
  Response.json(await issueShareLink(await getStore(), getGateway(), serverEnv().REPORT_TIMEZONE, user, params.id, body, request.url), { status: 201 }),
);
