/**
 * What a route of the service declares (its method, the credentials it needs, the rate-limit
 * windows it counts in) and what its handler receives and returns.
 */
export type AuthMode =
  /** No credentials (token issuance, health). */
  | "none"
  /** Bearer token plus x-client-id and x-client-secret naming the same client. */
  | "client"
  /** Bearer token; client headers optional but checked when sent. */
  | "bearer";

/** The rate-limit windows a route's calls are counted in, per authenticated client. */
export type Bucket = "report" | "routing";

export interface RequestContext {
  requestId: string;
  clientId: string | null;
  /** Headers to add to the response (rate-limit headers). */
  headers: Record<string, string>;
  now: Date;
  /**
   * The caller's address: the socket's, or, on a call relayed by another instance of the service
   * (service/http/owner.ts), the address that instance received it from. No other forwarded header
   * is trusted.
   */
  address: string;
  /** The call comes from another instance of the service (it carries the instance key). */
  instance: boolean;
}

export interface Route {
  method: "GET" | "POST";
  auth: AuthMode;
  /** The rate-limit windows its calls count in, per authenticated client (routes with auth "none" limit themselves). */
  bucket?: Bucket;
  /** Accepts application/x-www-form-urlencoded besides JSON (the OAuth2 token endpoint). */
  acceptsForm?: boolean;
  /** Only other instances of the service may call it (`ctx.instance`); to anyone else it does not exist. */
  instanceOnly?: boolean;
  handle(body: unknown, ctx: RequestContext): Promise<RouteResult>;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}
