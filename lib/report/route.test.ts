/**
 * The report routes as the browser meets them, on a gateway whose cache already holds the answer:
 * an exact hit is sent as the cache's bytes, the same body as before; every answer says where its
 * time went in a Server-Timing header that carries nothing secret. The route is served over HTTP by
 * its App Router handlers on a node:http server through Next.js's own adapters, as `next start`
 * hands a route handler its request and writes its answer (NextRequestAdapter, sendResponse).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { NodeNextRequest, NodeNextResponse } from "next/dist/server/base-http/node";
import { sendResponse } from "next/dist/server/send-response";
import { NextRequestAdapter, signalFromNodeResponse } from "next/dist/server/web/spec-extension/adapters/next-request";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { ReportGateway } from "@/lib/core/upstream/gateway";
import { queryKey } from "@/lib/core/upstream/records";
import { BodyKeys } from "@/lib/core/route/body-keys";
import { parseServerTiming } from "@/lib/core/http/server-timing";

const SECRETS = { nextauth: "nextauth-secret-0123456789abcdef0123456789", client: "upstream-client-secret-0123456789", token: "upstream-access-token-0123456789" };
const USER = { id: "3f1c2a9e-0000-4000-8000-000000000001", email: "analyst@example.com", role: "analyst" as const };

const gateway = new ReportGateway({
  baseUrl: "http://127.0.0.1:9", // never called: every answer here comes from the cache
  clientId: "client-id",
  clientSecret: SECRETS.client,
  accessToken: SECRETS.token,
  reportRateLimit: 5,
  rateWindowSeconds: 60,
  pageCap: 50,
  ttlPastSeconds: 3600,
  ttlTodaySeconds: 60,
  timeZone: "UTC",
});
vi.mock("@/lib/core/upstream", () => ({ getGateway: () => gateway }));
vi.mock("@/lib/core/auth/session", () => ({ requireUser: async () => USER }));
vi.mock("@/lib/core/env/env", () => ({ serverEnv: () => ({ NEXTAUTH_URL: "http://localhost:3000", NEXTAUTH_SECRET: SECRETS.nextauth }) }));

const route: Record<string, (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>> = await import("@/app/api/reports/order-summary/route");
const { submitReport } = await import("./route");

/** One request as `next start` serves an App Router route: its handler for the method, Next.js's request and response adapters. */
async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const handler = route[req.method ?? ""];
  if (!handler) throw new Error(`the route exports no ${req.method}`);
  const nextReq = new NodeNextRequest(req);
  const answer = await handler(NextRequestAdapter.fromNodeNextRequest(nextReq, signalFromNodeResponse(res)), { params: Promise.resolve({}) });
  await sendResponse(nextReq, new NodeNextResponse(res), answer);
}

const server = createServer((req, res) => void serve(req, res));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const query = { start_date: "2025-06-01", end_date: "2025-06-30", group_by: ["date"], metrics: ["attempts", "revenue"] };
const records: ReportRecord[] = Array.from({ length: 30 }, (_, i) => ({ date: `2025-06-${String(i + 1).padStart(2, "0")}`, attempts: 100 + i, revenue: 1234.5 + i }));
gateway["cache"].store("orders", gateway.parse("orders", query), records, 1);

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}/api/reports/order-summary?wait=1000`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `next-auth.session-token=${SECRETS.token}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("POST /api/reports/order-summary", () => {
  it("answers an exact hit with the cache's bytes: the body of a finished job and its canonical query", async () => {
    const res = await post({ ...query, metrics: ["revenue", "attempts"] }); // another spelling of the same query
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store, no-transform"); // small: sent uncompressed (./json-response.ts)
    const text = await res.text();
    // Next.js sends an App Router route's body chunked, without a length, whatever the handler sets;
    // what the browser relies on is the whole body, the same bytes on every hit (below).
    expect(res.headers.get("transfer-encoding")).toBe("chunked");
    // The same bytes each time, kept from the first hit.
    expect(await (await post(query)).text()).toBe(text);
    const body = JSON.parse(text) as { status: { state: string; result: { source: string; total: number; data: ReportRecord[] } }; query: unknown };
    expect(body.status).toMatchObject({ state: "done", result: { source: "cache", upstream_calls: 0, total: 30 } });
    expect(body.status.result.data).toEqual(records);
    expect(body.query).toEqual(gateway.parse("orders", query));
  });

  it("answers a derived hit with the same shape, built for it", async () => {
    const res = await post({ ...query, start_date: "2025-06-11", metrics: ["attempts"] });
    const body = (await res.json()) as { status: { result: { source: string; data: ReportRecord[] } } };
    expect(body.status.result.source).toBe("derived");
    expect(body.status.result.data).toHaveLength(20);
  });

  it("says where the time went in Server-Timing: fixed names and durations, nothing secret", async () => {
    const res = await post(query);
    const header = res.headers.get("server-timing")!;
    expect(header).toMatch(/^[a-z-]+;dur=\d+\.\d{3}(, [a-z-]+;dur=\d+\.\d{3})*$/);
    const timing = parseServerTiming(header);
    expect(Object.keys(timing)).toEqual(["session", "body", "parse", "cache", "serialize", "total"]);
    for (const ms of Object.values(timing)) expect(ms).toBeGreaterThanOrEqual(0);
    expect(timing.total).toBeGreaterThanOrEqual(timing.session! + timing.cache!);
    for (const secret of [...Object.values(SECRETS), USER.email, USER.id, "client-id"]) expect(header).not.toContain(secret);
    // Errors carry no timing (and never did carry details).
    const bad = await post({ ...query, metrics: ["no_such_metric"] });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("server-timing")).toBeNull();
  });

  it("refuses what the caller got wrong as the App Router routes do: the method, the type, the size", async () => {
    const get = await fetch(`${base}/api/reports/order-summary`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(await get.json()).toMatchObject({ success: false, code: 405, error: { type: "MethodNotAllowedError" } });
    for (const method of ["PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]) {
      const other = await fetch(`${base}/api/reports/order-summary`, { method });
      expect([method, other.status, other.headers.get("allow")]).toEqual([method, 405, "POST"]);
    }
    const form = await post("a=1", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect(((await form.json()) as { message: string }).message).toBe("Content-Type must be application/json");
    // 8 MiB: refused as over the contract's 64 KiB, though only 64 KiB and a byte of it were kept.
    const huge = await post(JSON.stringify({ ...query, pad: "x".repeat(8 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { message: string }).message).toBe("Request body must be at most 64 KiB");
    // A body of exactly the limit is read whole: refused for what it says, not for its size.
    const full = JSON.stringify({ ...query, metrics: ["no_such_metric"], pad: "" });
    const atLimit = await post(full.slice(0, -3) + "x".repeat(64 * 1024 - Buffer.byteLength(full)) + full.slice(-3));
    expect(atLimit.status).toBe(400);
  });

  it("refuses 100 oversized bodies sent at once, each with its own 413, and still answers a good request among them", async () => {
    const oversized = JSON.stringify({ ...query, pad: "x".repeat(1024 * 1024) }); // 1 MiB each, 100 MiB in all
    const expected = await (await post(query)).text();
    const [good, ...refused] = await Promise.all([post(query), ...Array.from({ length: 100 }, () => post(oversized))]);
    expect(good!.status).toBe(200);
    expect(await good!.text()).toBe(expected);
    for (const res of refused) {
      expect(res.status).toBe(413);
      expect(((await res.json()) as { message: string }).message).toBe("Request body must be at most 64 KiB");
    }
  });

  it("answers a body it has seen from the key kept for it, without validating it again: the same bytes", async () => {
    const text = JSON.stringify({ ...query, metrics: ["revenue", "attempts"], group_by: ["date"] }) + " "; // a spelling no other test sends
    const parse = vi.spyOn(gateway, "parse");
    try {
      const first = await post(text);
      expect(parse).toHaveBeenCalledTimes(1);
      const again = await post(text);
      expect(parse).toHaveBeenCalledTimes(1); // not validated again
      expect(await again.text()).toBe(await first.text());
      expect(Object.keys(parseServerTiming(again.headers.get("server-timing")))).toEqual(["session", "body", "parse", "cache", "serialize", "total"]);
    } finally {
      parse.mockRestore();
    }
  });

  it("keeps no body that fails: a bad body is refused every time, as before", async () => {
    const parse = vi.spyOn(gateway, "parse");
    try {
      for (let i = 0; i < 2; i++) {
        const bad = await post({ ...query, metrics: ["no_such_metric"] });
        expect(bad.status).toBe(400);
        expect(JSON.stringify(await bad.json())).toContain("no_such_metric");
        const notJson = await post("{not json");
        expect(notJson.status).toBe(400);
        expect(JSON.stringify(await notJson.json())).toContain("Request body is not valid JSON");
      }
      expect(parse).toHaveBeenCalledTimes(2); // each bad body validated each time (the non-JSON one never gets that far)
    } finally {
      parse.mockRestore();
    }
  });

  it("asks a kept text whose answer is not in the cache as the query its key was made from, without validating it again", async () => {
    const keys = new BodyKeys({ maxEntries: 10, maxTextLength: 2048 });
    const asked = { start_date: "2025-03-01", end_date: "2025-03-31", metrics: ["revenue", "attempts"], group_by: ["date"] }; // nothing cached answers it
    const text = JSON.stringify(asked);
    const parse = vi.spyOn(gateway, "parse");
    try {
      const first = (await (await submitReport("orders", text, 0, USER.id, keys)).json()) as { query: unknown };
      const again = (await (await submitReport("orders", text, 0, USER.id, keys)).json()) as { query: unknown };
      expect(parse).toHaveBeenCalledTimes(1);
      expect(first.query).toEqual({ ...asked, metrics: ["attempts", "revenue"] });
      expect(again.query).toEqual(first.query);
    } finally {
      parse.mockRestore();
    }
  });

  it("keeps the key of the operation asked: the same text asked of the cohort summary is its own question", async () => {
    const keys = new BodyKeys({ maxEntries: 10, maxTextLength: 2048 });
    const text = JSON.stringify(query);
    const orders = await submitReport("orders", text, 0, USER.id, keys);
    expect(orders.status).toBe(200);
    expect(keys.get("orders", text)).toBe(queryKey("orders", gateway.parse("orders", query)));
    // "attempts" and "revenue" are not cohort metrics: refused, and nothing kept for the cohort.
    await expect(submitReport("cohort", text, 0, USER.id, keys)).rejects.toMatchObject({ status: 400 });
    expect(keys.get("cohort", text)).toBeUndefined();
  });

  it("answers 100 requests at once, some repeated, some spelled differently, some bad, each with its own answer, within the bound", async () => {
    const keys = new BodyKeys({ maxEntries: 8, maxTextLength: 2048 });
    const expected = await (await post(query)).text();
    // 20 spellings of the cached query (metric order, key order, whitespace), 5 derived questions, 5 bad bodies.
    const spellings = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? JSON.stringify({ ...query, metrics: ["revenue", "attempts"] }, null, i % 5) : JSON.stringify({ metrics: query.metrics, group_by: query.group_by, end_date: query.end_date, start_date: query.start_date }) + " ".repeat(i),
    );
    const derived = Array.from({ length: 5 }, (_, i) => JSON.stringify({ ...query, start_date: `2025-06-${String(10 + i)}` }));
    const bad = Array.from({ length: 5 }, (_, i) => JSON.stringify({ ...query, metrics: [`nope_${i}`] }));
    const texts = Array.from({ length: 100 }, (_, i) => (i % 10 === 9 ? bad[i % 5]! : i % 10 === 8 ? derived[i % 5]! : spellings[i % 20]!));
    const answers = await Promise.all(
      texts.map(async (text) => {
        try {
          const res = await submitReport("orders", text, 0, USER.id, keys);
          return { status: res.status, text: await res.text() };
        } catch (e) {
          return { status: (e as { status?: number }).status ?? 0, text: "" };
        }
      }),
    );
    answers.forEach((a, i) => {
      const text = texts[i]!;
      if (bad.includes(text)) return expect(a.status).toBe(400);
      expect(a.status).toBe(200);
      if (spellings.includes(text)) return expect(a.text).toBe(expected);
      const body = JSON.parse(a.text) as { status: { result: { source: string; data: ReportRecord[] } } };
      expect(body.status.result.source).toBe("derived");
      expect(body.status.result.data).toHaveLength(30 - (Number(JSON.parse(text).start_date.slice(-2)) - 1));
    });
    expect(keys.size).toBeLessThanOrEqual(8);
    for (const text of bad) expect(keys.get("orders", text)).toBeUndefined();
  });
});
