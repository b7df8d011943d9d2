/**
 * Signed access tokens: compact JWS (HS256) naming the client, with issue and expiry times. Verified
 * with a constant-time signature comparison; the client must still be active at use.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

export interface TokenClaims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
}

export class TokenSigner {
  private readonly key: Buffer;
  constructor(secret: string, readonly ttlSeconds: number) {
    this.key = Buffer.from(secret, "utf8");
  }

  private sign(data: string): Buffer {
    return createHmac("sha256", this.key).update(data).digest();
  }

  issue(clientId: string, nowMs = Date.now()): { token: string; expiresIn: number } {
    const iat = Math.floor(nowMs / 1000);
    const claims: TokenClaims = { sub: clientId, iat, exp: iat + this.ttlSeconds, jti: randomBytes(9).toString("base64url") };
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
    const data = `${HEADER}.${payload}`;
    return { token: `${data}.${this.sign(data).toString("base64url")}`, expiresIn: this.ttlSeconds };
  }

  /** The claims of a well-formed, correctly signed, unexpired token; otherwise null. */
  verify(token: string, nowMs = Date.now()): TokenClaims | null {
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    const [h, p, s] = parts as [string, string, string];
    if (h !== HEADER) return null;
    const expected = this.sign(`${h}.${p}`);
    const given = Buffer.from(s, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8"));
    } catch {
      return null;
    }
    if (!isClaims(claims)) return null;
    if (claims.exp * 1000 <= nowMs) return null;
    return claims;
  }
}

function isClaims(v: unknown): v is TokenClaims {
  if (typeof v !== "object" || v === null) return false;
  const c = v as Record<string, unknown>;
  return typeof c.sub === "string" && typeof c.iat === "number" && typeof c.exp === "number" && typeof c.jti === "string";
}
