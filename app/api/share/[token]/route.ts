// GET /api/share/:token: the shared report's data (public, read-only; ?preset= among those the link allows).
import { cookies, headers } from "next/headers";
import { NextResponse } from "next/server";
import { errorResponse } from "@/lib/api/handler";
import { ApiError } from "@/lib/contract/errors";
import { requestAddress } from "@/lib/sharing/http";
import { loadSharedView } from "@/lib/sharing/view";

const STATUS = { ok: 200, pending: 202, locked: 401, expired: 410, revoked: 410, unknown: 404, throttled: 429 } as const;

export async function GET(request: Request, { params }: { params: Promise<{ token: string }> }) {
  try {
    const { token } = await params;
    const jar = await cookies();
    const view = await loadSharedView(token, {
      preset: new URL(request.url).searchParams.get("preset"),
      address: requestAddress(await headers()),
      cookie: (name) => jar.get(name)?.value,
    });
    return NextResponse.json(view, { status: STATUS[view.kind], headers: { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
  } catch (e) {
    if (e instanceof ApiError) return errorResponse(e);
    console.error(JSON.stringify({ level: "error", msg: "share view failed", error: e instanceof Error ? e.message : String(e) }));
    return errorResponse(new ApiError(500, "The shared report could not be loaded"));
  }
}
