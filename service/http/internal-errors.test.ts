// Internal error text (a journal's file path, a system error) reaches the log with the request id,
// never the response body; and token requests are limited per peer address (made-up client ids).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/contract/errors";
import { startTestService, TEST_TOKEN_SECRET, type TestService } from "../testing/harness";
import { jsonLogger } from "./log";
import { LocalAdmission } from "./admission";
import { createApiServer, listen } from "./server";
import { TokenSigner } from "./tokens";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ data: false, env: { TOKEN_ADDRESS_RATE_LIMIT: "5", TOKEN_RATE_LIMIT: "1000" } });
});
afterAll(async () => svc?.stop());

describe("internal error text", () => {
  it("stays in the log line of the request id; the body says what to do", async () => {
    const lines: string[] = [];
    const server = createApiServer({
      routes: {
        "/boom": [
          {
            method: "GET",
            auth: "none",
            async handle() {
              throw new ApiError(503, "Routing is unavailable; try again shortly").withInternal(new Error("EIO: write /var/lib/secret/journal-000042.log"));
            },
          },
        ],
      },
      admission: new LocalAdmission(svc.service.clients, new TokenSigner(TEST_TOKEN_SECRET, 60)),
      logger: jsonLogger((s) => lines.push(s)),
    });
    const { port } = await listen(server, 0, "127.0.0.1");
    try {
      const res = await fetch(`http://127.0.0.1:${port}/boom`);
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(text).not.toContain("/var/lib/secret");
      expect(text).not.toContain("EIO");
      const { request_id } = JSON.parse(text) as { request_id: string };
      const line = lines.map((l) => JSON.parse(l) as { request_id?: string; error?: string }).find((l) => l.request_id === request_id);
      expect(line?.error).toContain("/var/lib/secret/journal-000042.log");
    } finally {
      server.close();
    }
  });
});

describe("token requests per address", () => {
  it("stop a flood of made-up client ids before they cost scrypt", async () => {
    const ask = (i: number) =>
      fetch(`${svc.url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_id: `made-up-${i}`, client_secret: "x" }) });
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i).then((r) => r.status)));
    // The harness's own token request came from this address too: at most 5 in all are checked.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(8);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  });
});
