/**
 * Small answers are marked `no-transform` and Next.js's own compression middleware (the one
 * `next start` puts in front of every route) then leaves them alone, while larger ones are still
 * gzipped: checked against the installed Next.js, so an upgrade that stops honouring it fails here.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheControlFor, jsonResponse, UNCOMPRESSED_MAX_BYTES } from "./json-response";

type Middleware = (req: unknown, res: unknown, next: () => void) => void;
const compression = (createRequire(import.meta.url)("next/dist/compiled/compression") as () => Middleware)();

const answers = new Map<string, Response>();
let server: Server;
let port: number;

beforeAll(async () => {
  // What next start does with a route's Response: compression first (router-server.js), then the
  // Response's headers copied and its body piped in chunks (send-response.js, pipe-readable.js).
  server = createServer((req, res) => {
    compression(req, res, () => undefined);
    void (async () => {
      const answer = answers.get(req.url ?? "")!;
      res.statusCode = answer.status;
      answer.headers.forEach((value, name) => res.appendHeader(name, value));
      const reader = answer.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
      res.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string): Promise<{ encoding: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, path, headers: { "accept-encoding": "gzip, deflate, br" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers["content-encoding"];
        resolve({ encoding, body: (encoding === "gzip" ? gunzipSync(raw) : raw).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const jsonOf = (bytes: number) => JSON.stringify({ data: "x".repeat(bytes - 11) }); // exactly `bytes` bytes

describe("JSON answers", () => {
  it("marks answers up to 4 KiB no-transform, counting bytes, not characters", async () => {
    expect(cacheControlFor(0)).toBe("no-store, no-transform");
    expect(cacheControlFor(UNCOMPRESSED_MAX_BYTES)).toBe("no-store, no-transform");
    expect(cacheControlFor(UNCOMPRESSED_MAX_BYTES + 1)).toBe("no-store");
    const small = jsonResponse(jsonOf(4096), 202, { Location: "/api/reports/jobs/1" });
    expect(small.status).toBe(202);
    expect(small.headers.get("content-type")).toBe("application/json");
    expect(small.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(small.headers.get("location")).toBe("/api/reports/jobs/1");
    // 3,000 characters of two bytes each: 6,000 bytes, compressed.
    expect(jsonResponse(JSON.stringify("é".repeat(3000))).headers.get("cache-control")).toBe("no-store");
    expect(jsonResponse(Buffer.from(jsonOf(5000))).headers.get("cache-control")).toBe("no-store");
    expect(await jsonResponse(Buffer.from('{"a":1}')).text()).toBe('{"a":1}');
  });

  it("is sent uncompressed by Next.js's compression when small, gzipped when large", async () => {
    answers.set("/small", jsonResponse(jsonOf(UNCOMPRESSED_MAX_BYTES)));
    answers.set("/large", jsonResponse(jsonOf(UNCOMPRESSED_MAX_BYTES + 1)));
    answers.set("/tiny-without-mark", new Response("{}", { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } }));
    const small = await get("/small");
    expect(small.encoding).toBeUndefined();
    expect(small.body).toBe(jsonOf(UNCOMPRESSED_MAX_BYTES));
    const large = await get("/large");
    expect(large.encoding).toBe("gzip");
    expect(large.body).toBe(jsonOf(UNCOMPRESSED_MAX_BYTES + 1));
    // Without the mark even "{}" is gzipped: the length is unknown when the headers go out.
    expect((await get("/tiny-without-mark")).encoding).toBe("gzip");
  });
});
