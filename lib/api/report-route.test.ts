/**
 * The report routes as the browser meets them, on a gateway whose cache already holds the answer:
 * an exact hit is sent as the cache's bytes, the same body as before; every answer says where its
 * time went in a Server-Timing header that carries nothing secret.
 */
import { describe, expect, it, vi } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { ReportGateway } from "@/lib/upstream/gateway";
import { parseServerTiming } from "./server-timing";

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
vi.mock("@/lib/upstream", () => ({ getGateway: () => gateway }));
vi.mock("@/lib/auth/session", () => ({ requireUser: async () => USER }));
vi.mock("@/lib/env", () => ({ serverEnv: () => ({ NEXTAUTH_URL: "http://localhost:3000", NEXTAUTH_SECRET: SECRETS.nextauth }) }));

const { POST } = await import("@/app/api/reports/order-summary/route");

const query = { start_date: "2025-06-01", end_date: "2025-06-30", group_by: ["date"], metrics: ["attempts", "revenue"] };
const records: ReportRecord[] = Array.from({ length: 30 }, (_, i) => ({ date: `2025-06-${String(i + 1).padStart(2, "0")}`, attempts: 100 + i, revenue: 1234.5 + i }));
gateway["cache"].store("orders", gateway.parse("orders", query), records, 1);

function post(body: unknown, headers: Record<string, string> = {}) {
  const request = new Request("http://localhost:3000/api/reports/order-summary?wait=1000", {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `next-auth.session-token=${SECRETS.token}`, ...headers },
    body: JSON.stringify(body),
  });
  return POST(request, { params: Promise.resolve({}) });
}

describe("POST /api/reports/order-summary", () => {
  it("answers an exact hit with the cache's bytes: the body of a finished job and its canonical query", async () => {
    const res = await post({ ...query, metrics: ["revenue", "attempts"] }); // another spelling of the same query
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store, no-transform"); // small: sent uncompressed (./json-response.ts)
    const text = await res.text();
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
});
