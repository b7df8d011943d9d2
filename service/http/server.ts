/**
 * The service's HTTP layer on node:http: routing, body limits, content types, the caller's address,
 * admission (who may call, within which rate limit: ./admission.ts) and the two envelopes of SPEC.md §1. Handlers receive a parsed body and return data; every
 * failure is an ApiError rendered as the error envelope, and anything unexpected becomes a generic
 * 500 whose detail goes only to the log, under the request id.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LIMITS } from "@/lib/contract/catalog";
import { ApiError, errorEnvelope } from "@/lib/contract/errors";
import type { Logger } from "./log";
import { ulid } from "./ids";
import { isInstance, type Admission, type Credentials } from "./admission";
import type { AuthMode, RequestContext, Route } from "./route";

export const MAX_BODY_BYTES = LIMITS.maxBodyBytes;

export interface ServerDeps {
  routes: Record<string, Route[]>;
  admission: Admission;
  logger: Logger;
  /** The key other instances' calls carry (service/http/owner.ts); without it none is recognised. */
  instanceKey?: string;
  /**
   * Reverse proxies in front of this instance whose X-Forwarded-For entries are believed (the caller
   * is the entry this many from the right); 0 or unset: the socket's address.
   */
  trustedProxyHops?: number;
  /**
   * Paths answered by relaying the call whole to another instance (a replica's, to its owner), each
   * with the credentials it needs. The body is read whole first and the credentials checked here
   * (`check`), so a slow or unauthenticated caller never holds a connection to the other instance.
   */
  relay?: {
    paths: ReadonlyMap<string, AuthMode>;
    check(mode: AuthMode, credentials: Credentials): void;
    to: { relay(req: IncomingMessage, body: Buffer, res: ServerResponse, ctx: RequestContext): Promise<number> };
  };
  /** Deadlines for a caller's request (docs/security.md); Node's defaults where unset. */
  timeouts?: ServerTimeouts;
}

export interface ServerTimeouts {
  /** From a request's first byte to the end of its headers. */
  headersMs: number;
  /** From a request's first byte to the end of its body. */
  requestMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  keepAliveMs: number;
}

/** How often Node checks the header and request deadlines (its default, 30 s, would let a slow caller run that far past them). */
const DEADLINE_CHECK_MS = 1_000;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(text);
}

/**
 * Reads the body, keeping at most MAX_BODY_BYTES. A longer body is drained (not stored) so the client
 * can read its 413; one absurdly long is cut off.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? NaN);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overLimit = Number.isFinite(declared) && declared > MAX_BODY_BYTES;
    let settled = false;
    const settle = (fn: () => void) => {
      if (!settled) {
        settled = true;
        fn();
      }
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) overLimit = true;
      if (!overLimit) chunks.push(chunk);
      if (size > DRAIN_LIMIT_BYTES) req.destroy();
    });
    req.on("end", () => settle(() => (overLimit ? reject(tooLarge()) : resolve(Buffer.concat(chunks)))));
    req.on("close", () => settle(() => reject(tooLarge())));
    req.on("error", () => settle(() => reject(tooLarge())));
  });
}

const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

function tooLarge() {
  return new ApiError(413, `Request body must be at most ${MAX_BODY_BYTES / 1024} KiB`);
}

function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

function parseBody(raw: Buffer, type: string): unknown {
  const text = raw.toString("utf8");
  if (type === "application/x-www-form-urlencoded") {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (text.trim() === "") throw ApiError.badRequest("Request body is empty; send a JSON object");
  try {
    return JSON.parse(text);
  } catch {
    throw ApiError.badRequest("Request body is not valid JSON");
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function credentialsOf(req: IncomingMessage): Credentials {
  return { authorization: header(req, "authorization"), clientId: header(req, "x-client-id"), clientSecret: header(req, "x-client-secret") };
}

/**
 * The caller's address: the socket's, or behind `hops` trusted proxies the X-Forwarded-For entry
 * that many from the right (entries further left are whatever the client sent, so believing them
 * would let a caller choose the key it is counted under).
 */
export function callerAddress(req: IncomingMessage, hops: number): string {
  const socket = req.socket.remoteAddress ?? "unknown";
  if (hops === 0) return socket;
  const chain = (header(req, "x-forwarded-for") ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  return chain[Math.max(0, chain.length - hops)]?.slice(0, 100) ?? socket;
}

export function createApiServer(deps: ServerDeps): Server {
  const t = deps.timeouts;
  const server = createServer(t ? { headersTimeout: t.headersMs, requestTimeout: t.requestMs, connectionsCheckingInterval: DEADLINE_CHECK_MS } : {}, (req, res) => {
    void handle(req, res, deps);
  });
  server.keepAliveTimeout = t?.keepAliveMs ?? 65_000;
  return server;
}

async function handle(req: IncomingMessage, res: ServerResponse, deps: ServerDeps): Promise<void> {
  const started = performance.now();
  const requestId = ulid();
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  const ctx: RequestContext = { requestId, clientId: null, headers: {}, now: new Date(), address: callerAddress(req, deps.trustedProxyHops ?? 0), instance: false };
  if (deps.instanceKey && isInstance(req, deps.instanceKey)) {
    ctx.instance = true;
    ctx.address = header(req, "x-forwarded-for") ?? ctx.address;
  }
  let status = 500;
  let logError: string | undefined;
  try {
    const relayed = deps.relay?.paths.get(path);
    if (deps.relay && relayed) {
      const raw = await readBody(req);
      deps.relay.check(relayed, credentialsOf(req));
      status = await deps.relay.to.relay(req, raw, res, ctx);
      return;
    }
    const candidates = deps.routes[path];
    // An instance-only endpoint is not there for anyone else, whatever the method (a 405 would say it is).
    if (!candidates || (!ctx.instance && candidates.every((r) => r.instanceOnly))) throw new ApiError(404, `No such endpoint: ${req.method ?? "?"} ${path}`);
    const route = candidates.find((r) => r.method === req.method);
    if (!route) {
      const allow = candidates.map((r) => r.method).join(", ");
      throw new ApiError(405, `${req.method ?? "?"} is not allowed on ${path}; use ${allow}`, undefined, { Allow: allow });
    }

    let body: unknown = undefined;
    let raw: Buffer | undefined;
    let type = "";
    if (route.method === "POST") {
      raw = await readBody(req);
      type = mediaType(req);
      const allowed = route.acceptsForm ? ["application/json", "application/x-www-form-urlencoded"] : ["application/json"];
      if (!allowed.includes(type)) {
        throw new ApiError(415, `Content-Type must be ${allowed.join(" or ")}`);
      }
    } else {
      req.resume();
    }

    await deps.admission.admit(route, credentialsOf(req), ctx);
    if (raw) body = parseBody(raw, type);

    const result = await route.handle(body, ctx);
    status = result.status ?? 200;
    send(res, status, result.body, { ...ctx.headers, ...result.headers });
  } catch (e) {
    let err: ApiError;
    if (e instanceof ApiError) {
      err = e;
      if (e.internal) logError = e.internal;
    } else {
      err = new ApiError(500, `Internal error; quote request id ${requestId} when reporting it`);
      logError = e instanceof Error ? (e.stack ?? e.message) : String(e);
    }
    status = err.status;
    send(res, status, errorEnvelope(err, requestId, ctx.now), { ...ctx.headers, ...err.headers });
  } finally {
    deps.logger.request({
      request_id: requestId,
      method: req.method ?? "?",
      path,
      status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      client_id: ctx.clientId,
      ...(logError ? { error: logError } : {}),
    });
  }
}

/** Stops taking connections and drops the open ones (idle keep-alive sockets would hold close() up). */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
