import "server-only";
/**
 * The one wrapper for the dashboard's API routes: resolve the session and check the role, parse the
 * JSON body, run the handler, and map every thrown error to the contract's error envelope. Internals
 * never leak: an unexpected error is a generic 500 whose detail goes to the server log only.
 */
import { randomUUID } from "node:crypto";
import { NextResponse } from "next/server";
import { LIMITS } from "@/lib/contract/catalog";
import { ApiError, errorEnvelope } from "@/lib/contract/errors";
import { requireUser, type Role, type SessionUser } from "@/lib/auth/session";
import { serverEnv } from "@/lib/env";
import { refuseCrossSite } from "./cross-site";

export interface HandlerContext<P> {
  user: SessionUser;
  body: unknown;
  params: P;
  request: Request;
}

export function errorResponse(err: ApiError, requestId = randomUUID()): NextResponse {
  return NextResponse.json(errorEnvelope(err, requestId), { status: err.status, headers: { "Cache-Control": "no-store", ...err.headers } });
}

async function readJson(request: Request): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new ApiError(415, "Content-Type must be application/json");
  const text = await request.text();
  // Bytes, not UTF-16 characters: the same bound, counted the same way, as the service's.
  if (Buffer.byteLength(text) > LIMITS.maxBodyBytes) throw new ApiError(413, `Request body must be at most ${LIMITS.maxBodyBytes / 1024} KiB`);
  try {
    return JSON.parse(text);
  } catch {
    throw ApiError.badRequest("Request body is not valid JSON");
  }
}

export function apiRoute<P extends Record<string, string> = Record<string, never>>(
  options: { role: Role | Role[]; json?: boolean },
  fn: (ctx: HandlerContext<P>) => Promise<Response | unknown>,
) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    const requestId = randomUUID();
    try {
      refuseCrossSite(request, serverEnv().NEXTAUTH_URL);
      const user = await requireUser(options.role);
      const body = options.json ? await readJson(request) : undefined;
      const params = (await context.params) ?? ({} as P);
      const out = await fn({ user, body, params, request });
      if (out instanceof Response) return out;
      return NextResponse.json(out, { headers: { "Cache-Control": "no-store" } });
    } catch (e) {
      if (e instanceof ApiError) return errorResponse(e, requestId);
      console.error(JSON.stringify({ level: "error", msg: "api route failed", request_id: requestId, error: e instanceof Error ? e.message : String(e) }));
      return errorResponse(new ApiError(500, `Internal error; quote request id ${requestId} when reporting it`), requestId);
    }
  };
}
