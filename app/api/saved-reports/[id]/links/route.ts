// GET /api/saved-reports/:id/links: the report's share links with view counts; POST creates one (owner or admin).
import { apiRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/contract/errors";
import { serverEnv } from "@/lib/env";
import { ShareLinkInput } from "@/lib/sharing/http";
import { createShareLink, getEditableReport } from "@/lib/sharing/service";
import { getStore } from "@/lib/store";
import { publicLink, shareLinksRepo } from "@/lib/store/share-links";
import { getGateway } from "@/lib/upstream";

export const GET = apiRoute<{ id: string }>({ role: "analyst" }, async ({ user, params }) => {
  const db = await getStore();
  const report = await getEditableReport(db, user, params.id);
  return { links: (await shareLinksRepo(db).listForReport(report.id)).map(publicLink) };
});

export const POST = apiRoute<{ id: string }>({ role: "analyst", json: true }, async ({ user, params, body, request }) => {
  const db = await getStore();
  const report = await getEditableReport(db, user, params.id);
  const input = ApiError.parse(ShareLinkInput, body);
  const { token, link } = await createShareLink(db, getGateway(), serverEnv().REPORT_TIMEZONE, user, report, {
    mode: input.mode,
    ...(input.expires_in_days !== undefined ? { expiresInDays: input.expires_in_days } : {}),
    ...(input.password !== undefined ? { password: input.password } : {}),
    ...(input.allowed_presets !== undefined ? { allowedPresets: input.allowed_presets } : {}),
  });
  // The token is shown this once; only its hash is stored.
  const url = new URL(`/share/${token}`, request.url).toString();
  return Response.json({ link: publicLink(link), token, url }, { status: 201 });
});
