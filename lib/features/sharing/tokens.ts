/**
 * Share-link secrets: tokens with 256 bits of randomness (stored only as SHA-256), hashed visitor
 * addresses for the view log, and the signed, expiring, link-scoped cookie that a correct password
 * sets. The cookie is bound to the link's current token hash, so rotating a link locks it again.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export function newShareToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Plausible shape of a token; anything else is answered without touching the database. */
export function isTokenShaped(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

function key(secret: string, purpose: string): Buffer {
  return createHmac("sha256", secret).update(purpose).digest();
}

/** The view log keeps a keyed hash of the address, never the address. */
export function hashAddress(address: string, secret: string): string {
  return createHmac("sha256", key(secret, "share-address")).update(address).digest("hex").slice(0, 32);
}

export function unlockCookieName(tokenHash: string): string {
  return `share_unlock_${tokenHash.slice(0, 16)}`;
}

export function signUnlock(tokenHash: string, expiresAtMs: number, secret: string): string {
  const payload = `${expiresAtMs}`;
  const sig = createHmac("sha256", key(secret, "share-unlock")).update(`${tokenHash}.${payload}`).digest("base64url");
  return `${payload}.${sig}`;
}

export function verifyUnlock(value: string | undefined, tokenHash: string, secret: string, now = Date.now()): boolean {
  if (!value) return false;
  const [payload, sig] = value.split(".");
  if (!payload || !sig || !/^\d+$/.test(payload)) return false;
  if (Number(payload) <= now) return false;
  const expected = createHmac("sha256", key(secret, "share-unlock")).update(`${tokenHash}.${payload}`).digest();
  const given = Buffer.from(sig, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
