import "server-only";
/**
 * HTTP client of the upstream contract (SPEC.md): bearer tokens (a fixed one, or fetched from the
 * token URL and refreshed before expiry), the client headers, and typed results. It never logs and
 * never returns a credential; errors carry only the upstream's status and message.
 */
import { BIN_ROUTING_PREVIEW_PATH } from "@/lib/contract/openapi";
import {
  BinRoutingResponseSchema,
  ErrorEnvelopeSchema,
  OPERATION_TABLE,
  parseReportResponse,
  TokenResponseSchema,
  type BinRoutingRequest,
  type BinRoutingResponse,
  type Operation,
  type ReportRequest,
  type ReportResponse,
} from "@/lib/contract";

export interface UpstreamCredentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken?: string;
  tokenUrl?: string;
}

const UPSTREAM_ERROR = Symbol.for("payments-analytics.upstream-error");

export class UpstreamError extends Error {
  /** Recognised across bundles, as ApiError is (lib/contract/errors.ts): the gateway is built at start, apart from the routes. */
  static override [Symbol.hasInstance](x: unknown): boolean {
    return typeof x === "object" && x !== null && (x as { [UPSTREAM_ERROR]?: unknown })[UPSTREAM_ERROR] === true;
  }

  readonly [UPSTREAM_ERROR] = true;

  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly details?: { path: string; message: string }[],
  ) {
    super(message);
  }
}

const REFRESH_MARGIN_MS = 60_000;
const TIMEOUT_MS = 120_000;

export class UpstreamClient {
  private token: { value: string; expiresAt: number } | null = null;
  private tokenPromise: Promise<string> | null = null;
  /** Reporting calls actually sent (for status and tests). */
  reportCalls = 0;

  constructor(private readonly creds: UpstreamCredentials) {}

  private async fetchToken(): Promise<string> {
    if (this.creds.accessToken) return this.creds.accessToken;
    if (this.token && this.token.expiresAt - REFRESH_MARGIN_MS > Date.now()) return this.token.value;
    // One refresh at a time, shared by every caller.
    this.tokenPromise ??= (async () => {
      try {
        const res = await fetch(this.creds.tokenUrl!, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ client_id: this.creds.clientId, client_secret: this.creds.clientSecret }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        const body: unknown = await res.json().catch(() => null);
        if (!res.ok) throw toError(res, body, "Could not get an access token from the upstream service");
        const parsed = TokenResponseSchema.parse(body);
        this.token = { value: parsed.data.access_token, expiresAt: Date.now() + parsed.data.expires_in * 1000 };
        return this.token.value;
      } finally {
        this.tokenPromise = null;
      }
    })();
    return this.tokenPromise;
  }

  private post(path: string, body: unknown, withClientHeaders: boolean): Promise<unknown> {
    return this.send("POST", path, body, withClientHeaders);
  }

  private async send(method: "GET" | "POST", path: string, body: unknown, withClientHeaders: boolean, retried = false): Promise<unknown> {
    const token = await this.fetchToken();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (method === "POST") headers["content-type"] = "application/json";
    if (withClientHeaders) {
      headers["x-client-id"] = this.creds.clientId;
      headers["x-client-secret"] = this.creds.clientSecret;
    }
    let res: Response;
    try {
      const init: RequestInit = { method, headers, signal: AbortSignal.timeout(TIMEOUT_MS) };
      if (method === "POST") init.body = JSON.stringify(body);
      res = await fetch(`${this.creds.baseUrl}${path}`, init);
    } catch (e) {
      throw new UpstreamError(502, `The upstream service could not be reached (${e instanceof Error ? e.name : "network error"})`);
    }
    const json: unknown = await res.json().catch(() => null);
    if (res.status === 401 && !retried && this.creds.tokenUrl) {
      // The token may have been revoked or expired early: get a new one once.
      this.token = null;
      return this.send(method, path, body, withClientHeaders, true);
    }
    if (!res.ok) throw toError(res, json, `The upstream service answered ${res.status}`);
    return json;
  }

  /**
   * A call to one of the service's extension endpoints (bearer token only, like routing): the
   * answer's JSON as sent, for the caller to check against its schema.
   */
  extension(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    return this.send(method, path, body, false);
  }

  async report(op: Operation, request: ReportRequest): Promise<ReportResponse> {
    this.reportCalls++;
    const json = await this.post(OPERATION_TABLE[op].servicePath, request, true);
    const parsed = parseReportResponse(json);
    if (!parsed) throw new UpstreamError(502, "The upstream service sent an answer that does not follow the contract");
    return parsed;
  }

  /**
   * Routes (`route`, advancing the rotation like an order) or previews (`preview`: the extension of
   * this repository's service; the hosted original answers 404, which the caller reports as such).
   */
  async route(request: BinRoutingRequest, mode: "route" | "preview" = "route"): Promise<BinRoutingResponse> {
    const json = await this.post(mode === "route" ? "/api/bin-routing/route" : BIN_ROUTING_PREVIEW_PATH, request, false);
    const parsed = BinRoutingResponseSchema.safeParse(json);
    if (!parsed.success) throw new UpstreamError(502, "The upstream service sent a routing answer that does not follow the contract");
    return parsed.data;
  }
}

function toError(res: Response, body: unknown, fallback: string): UpstreamError {
  const env = ErrorEnvelopeSchema.safeParse(body);
  const header = Number(res.headers.get("retry-after"));
  const retryAfter = Number.isFinite(header) && header > 0 ? header : env.success ? env.data.retry_after : undefined;
  return new UpstreamError(res.status, env.success ? env.data.message : fallback, retryAfter, env.success ? env.data.error.details : undefined);
}
