// GET /api/share/:token: the shared report's data (public, read-only; ?preset= among those the link allows).
import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/core/route/handler";
import { shareVisitor } from "@/lib/features/sharing/http";
import { loadSharedView } from "@/lib/features/sharing/view";

// A paused link exists and may serve again (its sharer given back the right to share): refused, not gone.
const STATUS = { ok: 200, monitor: 200, dashboard: 200, pending: 202, locked: 401, expired: 410, revoked: 410, paused: 403, unknown: 404, throttled: 429 } as const;

export const GET = apiRoute({ role: "public", params: ["token"], feature: shareVisitor }, async ({ params, request, feature: visitor }) => {
  const view = await loadSharedView(params.token, { preset: new URL(request.url).searchParams.get("preset"), ...visitor });
  return NextResponse.json(view, { status: STATUS[view.kind], headers: { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
});
