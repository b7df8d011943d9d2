import "server-only";
/**
 * The one wrapper for the dashboard's API routes: resolve the session and check the role, parse the
 * JSON body, hand the handler the validated environment, the store, the report gateway and its
 * feature's context (a permission checked there, e.g. the routing workspace's), run the handler, and map every thrown error to the contract's error
 * envelope. Internals never leak: an unexpected error is a generic 500 whose detail goes to the
 * server log only.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { LIMITS } from "@/lib/contract/catalog";
import { ApiError, errorEnvelope } from "@/lib/contract/errors";
import { requireUser, type Role, type SessionUser } from "@/lib/core/auth/session";
import { serverEnv, type ServerEnv } from "@/lib/core/env/env";
import type { Store } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { refuseCrossSite } from "./cross-site";
import { jsonResponse } from "./json-response";
import { measure, ServerTiming, withTiming } from "@/lib/core/http/server-timing";

/** Who may call a route: a minimum role, exactly the listed roles, or anyone ("public": share links). */
export type Access = Role | readonly Role[] | "public";

export interface HandlerContext<P, B, U, St = undefined, F = undefined, G = undefined> {
  /** The signed-in user; null on public routes, which never resolve a session. */
  user: U;
  /** The validated environment. */
  env: ServerEnv;
  /** The process's store when the route asks for it (`store: true`), else undefined. */
  store: St;
  /** The process's report gateway (quota, cache, kept days) when the route asks for it (`gateway: true`), else undefined. */
  gateway: G;
  /** What the route's `feature` option resolved for this user (e.g. the routing workspace), else undefined. */
  feature: F;
  /** The JSON body: parsed by `schema` when the route has one, as read when `json` only, else undefined. */
  body: B;
  params: P;
  request: Request;
}

interface RouteOptions<A extends Access, K extends string, S extends z.ZodType | undefined, T extends boolean, D extends boolean, F, W extends boolean> {
  role: A;
  /** Opens (or reuses) the process's store and passes it as `store`. */
  store?: D;
  /** Passes the process's report gateway as `gateway`. */
  gateway?: W;
  /**
   * Resolves the feature's context for the caller, after the role check and the body's: a feature's
   * own permission is checked here (it throws the 403), and what its handlers all need is gathered
   * here (the notifications' dependencies, a share link's visitor), so every handler of the feature
   * gets it the same way.
   */
  feature?: (user: UserFor<A>) => Promise<F>;
  /** The dynamic segments of the route's path, e.g. ["id", "linkId"]. */
  params?: readonly K[];
  /** Reads the JSON body without a schema (the handler validates it itself). */
  json?: boolean;
  /**
   * Passes the body as its text, with the JSON body's checks (type, size) but not parsed: the report
   * routes parse it themselves only when they have not seen the same text (./body-keys.ts).
   */
  text?: T;
  /** Reads the JSON body and parses it; a mismatch is a 400 naming each field, before the handler runs. */
  schema?: S;
  /** Answers with a `Server-Timing` header of where the time went (./server-timing.ts). */
  timing?: boolean;
}

type UserFor<A extends Access> = A extends "public" ? null : SessionUser;
type BodyFor<S, T extends boolean> = S extends z.ZodType ? z.output<S> : T extends true ? string : unknown;
type StoreFor<D extends boolean> = D extends true ? Store : undefined;
type GatewayFor<W extends boolean> = W extends true ? ReportGateway : undefined;

function errorResponse(err: ApiError, requestId = randomUUID()): Response {
  return jsonResponse(JSON.stringify(errorEnvelope(err, requestId)), err.status, err.headers);
}

/**
 * The body of a JSON request as text, read once: 415 for another type, 413 past the contract's size.
 * Bytes, not UTF-16 characters: the same bound, counted the same way, as the service's. At most the
 * limit is kept in memory whatever the client sends; the rest is read and dropped, so that the 413
 * can be sent on the same connection.
 */
async function readJsonText(request: Request): Promise<string> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new ApiError(415, "Content-Type must be application/json");
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    bytes += part.value.byteLength;
    if (bytes <= LIMITS.maxBodyBytes) chunks.push(part.value);
    else chunks.length = 0;
  }
  if (bytes > LIMITS.maxBodyBytes) throw new ApiError(413, `Request body must be at most ${LIMITS.maxBodyBytes / 1024} KiB`);
  // As Request.text() decodes: UTF-8, a leading byte-order mark dropped.
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** JSON.parse, a 400 when the text is not JSON. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw ApiError.badRequest("Request body is not valid JSON");
  }
}

async function readJson(request: Request): Promise<unknown> {
  return parseJsonBody(await readJsonText(request));
}

/**
 * The handler of every method a route does not serve: a 405 in the contract's error envelope with an
 * `Allow` header (Next.js's own 405 for a method a route does not export has no body).
 */
/**
 * Handlers for the methods a POST-only route does not serve, each answering the contract's 405
 * envelope with `Allow: POST` (the App Router's own 405 has no body). A route exports them all:
 * `export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethodsThanPost();`
 */
export function otherMethodsThanPost() {
  const refuse = async (request: Request): Promise<Response> =>
    errorResponse(new ApiError(405, `Method ${request.method} is not allowed here; use POST`, undefined, { Allow: "POST" }));
  return { GET: refuse, PUT: refuse, PATCH: refuse, DELETE: refuse, HEAD: refuse, OPTIONS: refuse };
}

export function apiRoute<
  A extends Access,
  K extends string = never,
  S extends z.ZodType | undefined = undefined,
  T extends boolean = false,
  D extends boolean = false,
  F = undefined,
  W extends boolean = false,
>(
  options: RouteOptions<A, K, S, T, D, F, W>,
  fn: (ctx: HandlerContext<Record<K, string>, BodyFor<S, T>, UserFor<A>, StoreFor<D>, F, GatewayFor<W>>) => Promise<Response | unknown>,
) {
  return async (request: Request, context: { params: Promise<Record<K, string>> }): Promise<Response> => {
    const timing = options.timing ? new ServerTiming() : null;
    const handle = async (): Promise<Response> => {
      const env = serverEnv();
      refuseCrossSite(request, env.NEXTAUTH_URL);
      const user = (options.role === "public" ? null : await measure("session", () => requireUser(options.role as Role | readonly Role[], request))) as UserFor<A>;
      const raw = options.text
        ? await measure("body", () => readJsonText(request))
        : options.json || options.schema
          ? await measure("body", () => readJson(request))
          : undefined;
      const body = options.schema ? ApiError.parse(options.schema, raw) : raw;
      const params = (await context.params) ?? ({} as Record<K, string>);
      // Imported here, not at the top: the routes that never touch the store (the reports') load none
      // of it; the gateway likewise, and only once the feature's permission has let the caller in.
      const store = options.store ? await measure("store", async () => (await import("@/lib/core/store")).getStore()) : undefined;
      const feature = options.feature ? await options.feature(user) : undefined;
      const gateway = options.gateway ? (await import("@/lib/core/upstream")).getGateway() : undefined;
      // The casts restate what the option types already say: a public route's user is null, the body
      // is the schema's output when there is a schema, the text when `text`, and the store and the
      // feature's context and the gateway are there when asked for.
      const out = await fn({ user, env, body: body as BodyFor<S, T>, params, request, store: store as StoreFor<D>, feature: feature as F, gateway: gateway as GatewayFor<W> });
      if (out instanceof Response) return out;
      // Serialized here, where the handler's total times it; small answers go uncompressed.
      return jsonResponse(JSON.stringify(out));
    };
    try {
      if (!timing) return await handle();
      const res = await withTiming(timing, handle);
      res.headers.set("Server-Timing", timing.header());
      return res;
    } catch (e) {
      // Made only for an error, the one answer that carries it (a UUID per request was ≈ 7 µs of a hit).
      const requestId = randomUUID();
      if (e instanceof ApiError) return errorResponse(e, requestId);
      console.error(JSON.stringify({ level: "error", msg: "api route failed", request_id: requestId, error: e instanceof Error ? e.message : String(e) }));
      return errorResponse(new ApiError(500, `Internal error; quote request id ${requestId} when reporting it`), requestId);
    }
  };
}
