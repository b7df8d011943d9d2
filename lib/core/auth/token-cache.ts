/**
 * Decrypted session cookies, kept per cookie value for a short while. Decrypting a next-auth cookie
 * (an HKDF key derivation and an AES-GCM decryption) is a pure function of the cookie's value and the
 * secret, and was most of what checking a session cost; the payload it yields never changes for a
 * given value. So it is kept: at most `maxEntries` payloads, least recently used out first, each for
 * at most `ttlMs` and never past its token's own expiry.
 *
 * Nothing that ends a session is decided here: signing out, disabling a user, a role or password
 * change live in the store, whose answer the session check takes on every request (./session-token.ts).
 * Keys are SHA-256 digests of the cookie values, so the cookies themselves are not kept; failed
 * decryptions are not kept either (a forged cookie costs its sender a decryption each time, as before).
 */
import { createHash } from "node:crypto";

export interface TokenCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** The clock (tests). */
  now?: () => number;
}

/** next-auth's jose `jwtDecrypt` accepts a token until 15 s after its `exp`. */
const CLOCK_TOLERANCE_MS = 15_000;

interface Entry<T> {
  payload: T;
  keepUntil: number;
}

export class TokenCache<T extends object> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly now: () => number;

  constructor(private readonly options: TokenCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The payload of `raw`: kept from an earlier call, or `decrypt(raw)` (kept when it succeeds and
   * the token has an expiry). `decrypt` answers null for a cookie that does not decrypt or has expired.
   */
  async decode(raw: string, decrypt: (raw: string) => Promise<T | null>): Promise<T | null> {
    const key = createHash("sha256").update(raw).digest("base64url");
    const now = this.now();
    const kept = this.entries.get(key);
    if (kept) {
      this.entries.delete(key);
      if (kept.keepUntil > now) {
        this.entries.set(key, kept); // most recently used last
        return kept.payload;
      }
    }
    const payload = await decrypt(raw);
    const exp = (payload as { exp?: unknown } | null)?.exp;
    if (!payload || typeof exp !== "number") return payload;
    const keepUntil = Math.min(this.now() + this.options.ttlMs, exp * 1000 + CLOCK_TOLERANCE_MS);
    if (keepUntil <= this.now()) return payload;
    this.entries.set(key, { payload, keepUntil });
    while (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return payload;
  }
}
