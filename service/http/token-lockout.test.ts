/**
 * The token endpoint's limits against someone who knows a client_id but not its secret: their wrong
 * secrets lock out their own address, never the client's real caller elsewhere. Real service on a
 * real socket; the two callers are two loopback source addresses (127.0.0.2 and 127.0.0.3).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../testing/harness";

interface Answer {
  status: number;
  body: { code?: number; retry_after?: number; error?: { type: string } };
  retryAfter: string | undefined;
}

/** POST /api/auth/token from `from` (a local source address), with extra headers. */
function tokenCall(base: string, from: string, body: object, headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(`${base}/api/auth/token`);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress: from, agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const ra = res.headers["retry-after"];
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Answer["body"], retryAfter: typeof ra === "string" ? ra : undefined });
        });
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

const DASHBOARD = "127.0.0.2";
const ELSEWHERE = "127.0.0.3";

describe("token lockout", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ data: false, env: { TOKEN_RATE_LIMIT: "10", TOKEN_ADDRESS_RATE_LIMIT: "30" } });
  });
  afterAll(async () => svc?.stop());

  it("counts wrong secrets against the address they come from: the right secret from another address keeps working", async () => {
    const c = await svc.newClient("dashboard");
    const wrong = { client_id: c.client_id, client_secret: "guess" };
    const right = { client_id: c.client_id, client_secret: c.client_secret };
    // 25 guesses from elsewhere: past the client_id's 10 a minute and short of the address's 30.
    const guesses: Answer[] = [];
    for (let i = 0; i < 25; i++) guesses.push(await tokenCall(svc.url, ELSEWHERE, wrong));
    expect(guesses.slice(0, 10).map((g) => g.status)).toEqual(Array(10).fill(401));
    // The guesser is locked out, with the contract's 429 (RateLimitError, retry_after = Retry-After)...
    const locked = guesses.slice(10);
    expect(locked.every((g) => g.status === 429)).toBe(true);
    expect(locked[0]!.body.error?.type).toBe("RateLimitError");
    expect(locked[0]!.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(locked[0]!.retryAfter).toBe(String(locked[0]!.body.retry_after));
    // ...and so is the right secret from the guesser's address (a guess that hits cannot be told apart).
    expect((await tokenCall(svc.url, ELSEWHERE, right)).status).toBe(429);
    // The dashboard's address is not: its tokens keep coming, however long the guessing goes on.
    for (let i = 0; i < 5; i++) {
      const mine = await tokenCall(svc.url, DASHBOARD, right);
      expect(mine.status).toBe(200);
      expect(Number(mine.body.code)).toBe(200);
    }
  });

  it("trusts no X-Forwarded-For by default: a guesser cannot pick the address it is counted under", async () => {
    const c = await svc.newClient("forwarded");
    const wrong = { client_id: c.client_id, client_secret: "guess" };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await tokenCall(svc.url, "127.0.0.4", wrong, { "x-forwarded-for": `198.51.100.${i}` })).status);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

describe("token lockout behind a trusted proxy (SERVICE_TRUSTED_PROXY_HOPS=1)", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ data: false, env: { TOKEN_RATE_LIMIT: "10", TOKEN_ADDRESS_RATE_LIMIT: "30", SERVICE_TRUSTED_PROXY_HOPS: "1" } });
  });
  afterAll(async () => svc?.stop());

  it("counts each client by the address the proxy saw, the last X-Forwarded-For entry", async () => {
    const c = await svc.newClient("behind proxy");
    const wrong = { client_id: c.client_id, client_secret: "guess" };
    const right = { client_id: c.client_id, client_secret: c.client_secret };
    // Every call comes through one proxy (one socket address); the guesser prepends made-up entries.
    for (let i = 0; i < 12; i++) await tokenCall(svc.url, "127.0.0.5", wrong, { "x-forwarded-for": `10.9.9.${i}, 203.0.113.9` });
    expect((await tokenCall(svc.url, "127.0.0.5", wrong, { "x-forwarded-for": "203.0.113.9" })).status).toBe(429);
    expect((await tokenCall(svc.url, "127.0.0.5", right, { "x-forwarded-for": "198.51.100.20" })).status).toBe(200);
  });
});
