import "server-only";
/**
 * A share link's password form: every answer is a redirect back to the share page, with `?error=`
 * when the password was wrong or the visitor is throttled, and a signed, expiring cookie when right.
 * An unknown token and a wrong password answer alike.
 */
import { NextResponse } from "next/server";
import type { Sql } from "@/lib/core/store/sql";
import { checkSharePassword, resolveShare } from "./service";
import { signUnlock, unlockCookieName } from "./tokens";

const UNLOCK_HOURS = 12;

export async function unlockShare(db: Sql, token: string, password: string | null, address: string | null, secret: string, requestUrl: string): Promise<NextResponse> {
  const back = new URL(`/share/${encodeURIComponent(token)}`, requestUrl);
  const fail = (why: "wrong" | "throttled") => {
    back.searchParams.set("error", why);
    return NextResponse.redirect(back, 303);
  };
  const r = await resolveShare(db, token, address, secret, () => undefined);
  if (r.kind === "throttled") return fail("throttled");
  if (r.kind === "unknown") return fail("wrong");
  // Open, expired or revoked: the page itself says which.
  if (r.kind !== "locked") return NextResponse.redirect(back, 303);
  const checked = password !== null ? await checkSharePassword(db, r.link, password, address, secret) : "wrong";
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
