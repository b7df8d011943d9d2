/**
 * The print token: how the dashboard's own Chromium opens a saved report's print view as the user
 * who asked for the PDF (or the owner of a scheduled report), without their session cookie. It is
 * made on the server only after the user's right to see the report was checked, names that user and
 * that report, lives a few minutes, and is signed with a key derived from NEXTAUTH_SECRET. It travels
 * in a request header, never in a URL (which logs keep). The print view checks the user's rights
 * again when it draws: the token proves who asked, not what they may see.
 *
 * A share link's print view takes a token of its own, naming the link (by its token's hash) and no
 * user: it proves the render was asked of this server's renderer, whose limits bound it, after the
 * link's checks passed; the view makes every check of the share page again.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const PRINT_TOKEN_HEADER = "x-print-token";

/** Whose turn the report's data queues in: the person who asked, or the background (a scheduled send). */
export type PrintQueue = "user" | "background";

export interface PrintClaim {
  userId: string;
  reportId: string;
  preset: string | null;
  queue: PrintQueue;
  /** Epoch milliseconds after which the token opens nothing. */
  expires: number;
}

/** Long enough for a render's own time limit, short enough that a leaked token soon opens nothing. */
export const PRINT_TOKEN_TTL_MS = 5 * 60_000;

const key = (secret: string) => createHmac("sha256", secret).update("print-token").digest();
const sign = (body: string, secret: string) => createHmac("sha256", key(secret)).update(body).digest("base64url");

export function makePrintToken(claim: Omit<PrintClaim, "expires">, secret: string, now: number): string {
  const body = Buffer.from(JSON.stringify({ u: claim.userId, r: claim.reportId, p: claim.preset, q: claim.queue, e: now + PRINT_TOKEN_TTL_MS })).toString("base64url");
  return `${body}.${sign(body, secret)}`;
}

/** The token's claim when it is signed with `secret`, names `reportId` and has not expired; else null. */
export function readPrintToken(token: string | null | undefined, reportId: string, secret: string, now: number): PrintClaim | null {
  const raw = verified(token, secret);
  if (!raw) return null;
  const { u, r, p, q, e } = raw;
  if (typeof u !== "string" || typeof r !== "string" || typeof e !== "number" || (q !== "user" && q !== "background")) return null;
  if (p !== null && typeof p !== "string") return null;
  if (r !== reportId || e <= now) return null;
  return { userId: u, reportId: r, preset: p, queue: q, expires: e };
}

/** A share link's print token, for the link whose token hashes to `tokenHash`. */
export function makeSharePrintToken(tokenHash: string, secret: string, now: number): string {
  const body = Buffer.from(JSON.stringify({ s: tokenHash, e: now + PRINT_TOKEN_TTL_MS })).toString("base64url");
  return `${body}.${sign(body, secret)}`;
}

/** Whether `token` is a share print token signed with `secret`, for `tokenHash`, not expired (a report's token is not). */
export function readSharePrintToken(token: string | null | undefined, tokenHash: string, secret: string, now: number): boolean {
  const raw = verified(token, secret);
  if (!raw) return false;
  const { s, e } = raw;
  return typeof s === "string" && typeof e === "number" && s === tokenHash && e > now;
}

/** The token's body when its signature holds, else null. */
function verified(token: string | null | undefined, secret: string): Record<string, unknown> | null {
  if (!token) return null;
  const [body, mac, extra] = token.split(".");
  if (!body || !mac || extra !== undefined) return null;
  const want = Buffer.from(sign(body, secret));
  const got = Buffer.from(mac);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  try {
    const raw: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    return typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
