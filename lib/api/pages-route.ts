import "server-only";
/**
 * Serves `apiRoute` handlers from the Pages Router (`pages/api/…`), for the routes whose every
 * millisecond counts: the two report routes, whose cache hits are most of what the dashboard asks.
 *
 * Why (docs/benchmarks.md): an App Router route handler's request goes through Next.js's
 * web adapters (a `NextRequest` around Node's request with a web stream for its body, AbortSignals,
 * the Response piped back in chunks with the headers flushed first, so two writes and no
 * Content-Length). A Pages API route is handed Node's own request and response: the same POST with
 * the same 1.8 KB answer took 0.98 ms against 1.42 through fetch, 0.68 against 1.16 through
 * node:http (400 interleaved calls each, one build). Here the handler still gets a `NextRequest`,
 * built once from the body already read, and its answer is written in one piece with its length,
 * so everything below `apiRoute` (session, role, cross-site refusal, body checks, error envelope,
 * Server-Timing) is the same code whichever router serves the route.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { NextRequest } from "next/server";
import { LIMITS } from "@/lib/contract/limits";
import { ApiError } from "@/lib/contract/errors";
import { serverEnv } from "@/lib/env";
import { errorResponse } from "./handler";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type WebHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** The routes served here have no dynamic segments. */
const NO_PARAMS: Promise<Record<string, string>> = Promise.resolve({});

/**
 * Reads the body, at most one byte past the contract's limit: enough for `apiRoute`'s own 413, never
 * more in memory whatever the client sends. The rest is read and dropped, so the answer can be sent.
 */
async function boundedBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (kept > LIMITS.maxBodyBytes) continue;
    const room = LIMITS.maxBodyBytes + 1 - kept;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(part);
    kept += part.length;
  }
  return chunks.length ? Buffer.concat(chunks).toString("utf8") : undefined;
}

/** Node's request as the `NextRequest` an App Router handler would get (headers, body, URL, cookies). */
async function toNextRequest(req: IncomingMessage): Promise<NextRequest> {
  const method = req.method ?? "GET";
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const body = method === "GET" || method === "HEAD" ? undefined : await boundedBody(req);
  // The dashboard's own origin: the path and query are the request's, which is all a handler reads.
  return new NextRequest(new URL(req.url ?? "/", serverEnv().NEXTAUTH_URL), { method, headers, body });
}

/** Writes a web Response to Node's response in one piece, with its length. */
async function send(res: ServerResponse, answer: Response): Promise<void> {
  const body = Buffer.from(await answer.arrayBuffer());
  res.statusCode = answer.status;
  answer.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  res.setHeader("content-length", body.length);
  res.end(body);
}

/**
 * A Pages API route's default export answering each method with its `apiRoute` handler; any other
 * method is a 405 with an `Allow` header, as from an App Router route, but in the contract's error
 * envelope (an App Router route's 405 has no body).
 */
export function pagesRoute(handlers: Partial<Record<Method, WebHandler>>) {
  const allow = Object.keys(handlers).join(", ");
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const handler = handlers[(req.method ?? "") as Method];
    if (!handler) {
      req.resume();
      return send(res, errorResponse(new ApiError(405, `Method ${req.method ?? ""} is not allowed here; use ${allow}`, undefined, { Allow: allow })));
    }
    await send(res, await handler(await toNextRequest(req), { params: NO_PARAMS }));
  };
}
