import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorEnvelopeSchema } from "@/lib/contract";
import { startTestService, TEST_ENGINES, type TestService } from "../testing/harness";
import { TokenSigner } from "./tokens";

// The same contract on every engine: DuckDB, ClickHouse on one node, and ClickHouse on two shards.
describe.each(TEST_ENGINES)("on %s", (engine) => {
  let svc: TestService;
  // A generous report limit here so these tests don't trip it; the limit itself is tested below.
  beforeAll(async () => {
    svc = await startTestService({ data: false, env: { REPORT_RATE_LIMIT: "100000", TOKEN_RATE_LIMIT: "1000" }, engine });
  });
  afterAll(async () => svc?.stop());

  const range = { start_date: "2025-07-01", end_date: "2025-07-31" };

  async function expectError(res: Response, status: number, type: string) {
    expect(res.status).toBe(status);
    const body = await res.json();
    const env = ErrorEnvelopeSchema.parse(body);
    expect(env.error.type).toBe(type);
    expect(env.code).toBe(status);
    expect(env.request_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(env.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    return env;
  }

  describe("conventions (SPEC §1)", () => {
    it("answers a valid request with the success envelope", async () => {
      const res = await svc.post("/api/data", { ...range, group_by: ["date"], metrics: ["revenue"] });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ success: true, code: 200, message: "Order summary data retrieved successfully" });
      expect(body.pagination).toEqual({ total: 0, limit: 1000, offset: 0, has_more: false });
      expect(body.timestamp).toMatch(/Z$/);
    });

    it("400 lists every validation problem with its path", async () => {
      const env = await expectError(await svc.post("/api/data", { start_date: "2025-02-30", end_date: "2025-12-31", "group-by": ["date"] }), 400, "BadRequestError");
      expect(env.error.details?.map((d) => d.path).sort()).toEqual(["group-by", "start_date"]);
    });

    it("400 for the 100-day cap names end_date", async () => {
      const env = await expectError(await svc.post("/api/data", { start_date: "2025-01-01", end_date: "2025-04-12" }), 400, "BadRequestError");
      expect(env.message).toMatch(/end_date must be at most 100 days after start_date/);
    });

    it("400 for malformed JSON and an empty body", async () => {
      await expectError(await svc.post("/api/data", "{not json"), 400, "BadRequestError");
      await expectError(await svc.post("/api/data", ""), 400, "BadRequestError");
      await expectError(await svc.post("/api/data", "[]"), 400, "BadRequestError");
    });

    it("404 for an unknown path, 405 with Allow for a wrong method", async () => {
      await expectError(await fetch(`${svc.url}/api/nope`, { method: "POST" }), 404, "NotFoundError");
      const res = await fetch(`${svc.url}/api/data`, { method: "GET", headers: svc.authHeaders() });
      await expectError(res, 405, "MethodNotAllowedError");
      expect(res.headers.get("allow")).toBe("POST");
    });

    it("413 for a body over 64 KiB", async () => {
      const big = JSON.stringify({ ...range, filters: { affid: ["x".repeat(70 * 1024)] } });
      await expectError(await svc.post("/api/data", big), 413, "PayloadTooLargeError");
    });

    it("415 for another content type", async () => {
      const res = await fetch(`${svc.url}/api/data`, {
        method: "POST",
        headers: { ...svc.authHeaders(), "content-type": "text/plain" },
        body: JSON.stringify(range),
      });
      await expectError(res, 415, "UnsupportedMediaTypeError");
    });

    it("500 for a failure of its own: a generic message and the request id, the detail only in the log", async () => {
      // A real internal failure: the table the order summary reads disappears under the running service.
      const away = await svc.renameReportTable("order_grain", "order_grain_away");
      let env;
      try {
        // At the finest grain, which every engine reads from the grain table itself.
        env = await expectError(await svc.post("/api/data", range), 500, "InternalServerError");
      } finally {
        await away.restore();
      }
      expect(env.message).toBe(`Internal error; quote request id ${env.request_id} when reporting it`);
      expect(JSON.stringify(env)).not.toMatch(/order_grain|SELECT|\.ts:/);
      const line = svc.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === env.request_id);
      expect(line).toMatchObject({ level: "error", status: 500, path: "/api/data", client_id: svc.client.client_id });
      expect(String(line?.error)).toContain("order_grain");
      // The service keeps serving once the table is back.
      expect((await svc.post("/api/data", range)).status).toBe(200);
    });

    it("serves /healthz without auth and the OpenAPI document", async () => {
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
      const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).toBe("3.1.0");
      expect(Object.keys(doc.paths)).toContain("/api/data/cohort");
    });

    it("never answers 5xx to thousands of malformed bodies", async () => {
      const anyJson = fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            start_date: fc.oneof(fc.string(), fc.constant("2025-07-01"), fc.integer()),
            end_date: fc.oneof(fc.string(), fc.constant("2025-07-02"), fc.constant(null)),
            group_by: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
            metrics: fc.oneof(fc.array(fc.constantFrom("revenue", "attempts", "x")), fc.jsonValue()),
            filters: fc.oneof(fc.dictionary(fc.constantFrom("product_id", "bin", "sales_type", "date", "price_point", "zz"), fc.jsonValue()), fc.jsonValue()),
            limit: fc.oneof(fc.integer(), fc.double(), fc.string()),
            offset: fc.oneof(fc.integer(), fc.double()),
          },
          { requiredKeys: [] },
        ),
      );
      // 3,000 bodies, eight at a time: each request is answered on its own, and a batch keeps the
      // service busy instead of the test waiting out one round trip after another.
      const BATCH = 8;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(anyJson, fc.constantFrom("/api/data", "/api/data/cohort")), { minLength: BATCH, maxLength: BATCH }), async (batch) => {
          await Promise.all(
            batch.map(async ([body, path]) => {
              const res = await svc.post(path, body);
              expect(res.status, `${path} answered ${res.status} to ${JSON.stringify(body)}`).toBeLessThan(500);
              const json: unknown = await res.json();
              if (res.status !== 200) ErrorEnvelopeSchema.parse(json);
            }),
          );
        }),
        { numRuns: 3000 / BATCH },
      );
    });
  });

  describe("authentication (SPEC §1.1)", () => {
    it("issues tokens for JSON and form-encoded client credentials", async () => {
      const json = await fetch(`${svc.url}/api/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(svc.client),
      });
      expect(json.status).toBe(200);
      const body = (await json.json()) as { data: { token_type: string; expires_in: number; access_token: string } };
      expect(body.data.token_type).toBe("Bearer");
      expect(body.data.expires_in).toBe(3600);
      const form = await fetch(`${svc.url}/api/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "client_credentials", ...svc.client }).toString(),
      });
      expect(form.status).toBe(200);
    });

    it("401 for a wrong secret or unknown client at the token endpoint", async () => {
      await expectError(
        await fetch(`${svc.url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...svc.client, client_secret: "nope" }) }),
        401,
        "UnauthorizedError",
      );
      await expectError(
        await fetch(`${svc.url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_id: "cl_nobody", client_secret: "nope" }) }),
        401,
        "UnauthorizedError",
      );
    });

    it("401 with WWW-Authenticate for each kind of bad credential, saying only missing or invalid", async () => {
      const h = svc.authHeaders();
      const other = await svc.newClient("other");
      const expired = new TokenSigner("test-token-secret-0123456789abcdef0123456789", 1).issue(svc.client.client_id, Date.now() - 10_000).token;
      const foreign = new TokenSigner("another-secret-another-secret-another-secret", 3600).issue(svc.client.client_id).token;
      const cases: [Record<string, string>, string][] = [
        [{}, "Missing credentials"],
        [{ ...h, authorization: "" }, "Missing credentials"],
        [{ authorization: h.authorization ?? "" }, "Missing credentials"],
        [{ ...h, authorization: "Basic abc" }, "Invalid credentials"],
        [{ ...h, authorization: "Bearer not.a.token" }, "Invalid credentials"],
        [{ ...h, authorization: `Bearer ${expired}` }, "Invalid credentials"],
        [{ ...h, authorization: `Bearer ${foreign}` }, "Invalid credentials"],
        [{ ...h, "x-client-secret": "wrong" }, "Invalid credentials"],
        [{ ...h, authorization: `Bearer ${other.token}` }, "Invalid credentials"],
      ];
      for (const [headers, message] of cases) {
        const res = await svc.post("/api/data", range, headers);
        const env = await expectError(res, 401, "UnauthorizedError");
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        expect(env.message).toBe(message);
      }
    });

    it("stops honouring tokens of a deactivated client", async () => {
      const c = await svc.newClient("short-lived");
      const h = { authorization: `Bearer ${c.token}`, "x-client-id": c.client_id, "x-client-secret": c.client_secret };
      expect((await svc.post("/api/data", range, h)).status).toBe(200);
      await svc.db.run("UPDATE api_clients SET active = FALSE WHERE client_id = ?", [c.client_id]);
      await svc.service.clients.refresh();
      await expectError(await svc.post("/api/data", range, h), 401, "UnauthorizedError");
    });

    it("logs one line per request without secrets, tokens or bodies", async () => {
      await svc.post("/api/data", { ...range, filters: { affid: "SECRET-LOOKING-FILTER" } });
      const log = svc.logLines.join("");
      expect(log).not.toContain(svc.client.client_secret);
      expect(log).not.toContain(svc.token);
      expect(log).not.toContain("SECRET-LOOKING-FILTER");
      const last = JSON.parse(svc.logLines.at(-1)!) as Record<string, unknown>;
      expect(Object.keys(last).sort()).toEqual(["client_id", "duration_ms", "level", "method", "msg", "path", "request_id", "status", "ts"]);
      expect(last).toMatchObject({ method: "POST", path: "/api/data", status: 200, client_id: svc.client.client_id });
    });
  });

  describe("rate limits (SPEC §1.4)", () => {
    let limited: TestService;
    beforeAll(async () => {
      limited = await startTestService({ data: false, env: { REPORT_RATE_LIMIT: "5", RATE_LIMIT_WINDOW_SECONDS: "2", TOKEN_RATE_LIMIT: "3" }, engine });
    });
    afterAll(async () => limited?.stop());

    it("admits 5 reporting calls across both operations, then 429 with Retry-After equal to retry_after", async () => {
      const paths = ["/api/data", "/api/data/cohort", "/api/data", "/api/data/cohort", "/api/data"];
      for (const [i, p] of paths.entries()) {
        const res = await limited.post(p, range);
        expect(res.status).toBe(200);
        expect(res.headers.get("x-ratelimit-limit")).toBe("5");
        expect(res.headers.get("x-ratelimit-remaining")).toBe(String(4 - i));
        expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
      }
      // Invalid bodies from an authenticated client count too; this one is refused before validation.
      const res = await limited.post("/api/data/cohort", { bogus: true });
      const env = await expectError(res, 429, "RateLimitError");
      expect(env.retry_after).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("retry-after")).toBe(String(env.retry_after));
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    });

    it("does not count requests that fail authentication, and frees slots as the window slides", async () => {
      await new Promise((r) => setTimeout(r, 2100));
      for (let i = 0; i < 10; i++) expect((await limited.post("/api/data", range, {})).status).toBe(401);
      const res = await limited.post("/api/data", range);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("4");
    });

    it("limits token requests per client_id from one address, counting wrong secrets", async () => {
      const c = await limited.newClient("token-limit"); // spends 1 of 3
      const body = (secret: string) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_id: c.client_id, client_secret: secret }) });
      expect((await fetch(`${limited.url}/api/auth/token`, body("wrong"))).status).toBe(401);
      expect((await fetch(`${limited.url}/api/auth/token`, body(c.client_secret))).status).toBe(200);
      await expectError(await fetch(`${limited.url}/api/auth/token`, body(c.client_secret)), 429, "RateLimitError");
    });
  });
});
