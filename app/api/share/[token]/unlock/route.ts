// POST /api/share/:token/unlock: check a share link's password (form post) and set its signed, expiring cookie.
import { headers } from "next/headers";
import { NextResponse } from "next/server";
import { refuseCrossSite } from "@/lib/api/cross-site";
import { errorResponse } from "@/lib/api/handler";
import { serverEnv } from "@/lib/env";
import { ApiError } from "@/lib/contract/errors";
import { requestAddress, shareSecret } from "@/lib/sharing/http";
import { checkSharePassword, resolveShare } from "@/lib/sharing/service";
import { signUnlock, unlockCookieName } from "@/lib/sharing/tokens";
import { getStore } from "@/lib/store";

const UNLOCK_HOURS = 12;

export async function POST(request: Request, { params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const back = new URL(`/share/${encodeURIComponent(token)}`, request.url);
  try {
    refuseCrossSite(request, serverEnv().NEXTAUTH_URL);
  } catch (e) {
    if (e instanceof ApiError) return errorResponse(e);
    throw e;
  }
  const form = await request.formData().catch(() => null);
  const password = form?.get("password");
  const address = requestAddress(await headers());
  const secret = shareSecret();
  const db = await getStore();
  const r = await resolveShare(db, token, address, secret, () => undefined);
  const fail = (why: "wrong" | "throttled") => {
    back.searchParams.set("error", why);
    return NextResponse.redirect(back, 303);
  };
  if (r.kind === "throttled") return fail("throttled");
  // An unknown token and a wrong password answer alike.
  if (r.kind !== "locked" && r.kind !== "ok") return r.kind === "unknown" ? fail("wrong") : NextResponse.redirect(back, 303);
  if (r.kind === "ok") return NextResponse.redirect(back, 303);
  const checked = typeof password === "string" ? await checkSharePassword(db, r.link, password, address, secret) : "wrong";
  if (checked !== "ok") return fail(checked);
  const expires = Math.min(Date.parse(r.link.expiresAt), Date.now() + UNLOCK_HOURS * 3_600_000);
  const res = NextResponse.redirect(back, 303);
  res.cookies.set(unlockCookieName(r.tokenHash), signUnlock(r.tokenHash, expires, secret), {
    httpOnly: true,
    sameSite: "lax",
    secure: back.protocol === "https:",
    path: "/",
    expires: new Date(expires),
  });
  return res;
}
