/**
 * Who may make a call: the credentials it carries, checked against the clients and the token signer
 * (the bearer token, and the client id and secret where the route needs them), its client's
 * rate-limit window, and whether it comes from another instance of the service (the instance key).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ApiError } from "@/lib/contract/errors";
import type { ClientRegistry } from "../clients";
import { rateLimitHeaders, type SlidingWindowLimiter } from "./rate-limit";
import type { AuthMode, Bucket, RequestContext } from "./route";
import type { TokenSigner } from "./tokens";

/** The header an instance's calls to the owner carry. */
export const INSTANCE_KEY_HEADER = "x-service-instance-key";

/** Whether a request comes from an instance (constant-time comparison). */
export function isInstance(req: IncomingMessage, key: string): boolean {
  const sent = req.headers[INSTANCE_KEY_HEADER];
  if (typeof sent !== "string" || sent.length !== key.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(key));
}

/** The credentials a call carries. */
export interface Credentials {
  authorization?: string;
  clientId?: string;
  clientSecret?: string;
}

/**
 * Who may make a call, and whether it fits its client's rate limit: sets `ctx.clientId` and the
 * rate-limit headers, or throws the 401 or 429. Decided here (LocalAdmission) or, on a replica, by
 * the owner (service/http/owner.ts).
 */
export interface Admission {
  admit(route: { auth: AuthMode; bucket?: Bucket }, credentials: Credentials, ctx: RequestContext): Promise<void>;
}

const unauthorized = (missing: boolean) =>
  new ApiError(401, missing ? "Missing credentials" : "Invalid credentials", undefined, { "WWW-Authenticate": 'Bearer realm="api"' });

/** Throws the 401 unless the call carries a bearer token that is well-formed, signed with `tokens`' key and unexpired. */
export function checkBearer(credentials: Credentials, tokens: TokenSigner): void {
  const m = credentials.authorization ? /^Bearer\s+(\S+)$/i.exec(credentials.authorization) : null;
  if (!credentials.authorization) throw unauthorized(true);
  if (!m || !tokens.verify(m[1]!)) throw unauthorized(false);
}

async function authenticate(credentials: Credentials, mode: AuthMode, clients: ClientRegistry, tokens: TokenSigner): Promise<string | null> {
  if (mode === "none") return null;
  const { authorization: authz, clientId, clientSecret } = credentials;
  const needsClient = mode === "client";
  if (!authz || (needsClient && (!clientId || !clientSecret))) throw unauthorized(true);
  const m = /^Bearer\s+(\S+)$/i.exec(authz);
  if (!m) throw unauthorized(false);
  const claims = tokens.verify(m[1]!);
  if (!claims || !clients.isActive(claims.sub)) throw unauthorized(false);
  if (clientId !== undefined || clientSecret !== undefined) {
    if (!clientId || !clientSecret) throw unauthorized(true);
    if (clientId !== claims.sub) throw unauthorized(false);
    if (!(await clients.verify(clientId, clientSecret))) throw unauthorized(false);
  }
  return claims.sub;
}

/** Admission by this instance: its clients, its token signer, its rate-limit windows. */
export class LocalAdmission implements Admission {
  constructor(
    private readonly clients: ClientRegistry,
    private readonly tokens: TokenSigner,
    private readonly limiters: Partial<Record<Bucket, SlidingWindowLimiter>> = {},
  ) {}

  async admit(route: { auth: AuthMode; bucket?: Bucket }, credentials: Credentials, ctx: RequestContext): Promise<void> {
    ctx.clientId = await authenticate(credentials, route.auth, this.clients, this.tokens);
    const limiter = route.bucket ? this.limiters[route.bucket] : undefined;
    if (!limiter || !ctx.clientId) return;
    const decision = limiter.hit(ctx.clientId);
    Object.assign(ctx.headers, rateLimitHeaders(decision));
    if (!decision.allowed) {
      throw new ApiError(429, `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s`, undefined, {}, {
        retry_after: decision.retryAfterSeconds,
      });
    }
  }
}
