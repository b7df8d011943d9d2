/**
 * Test support: a pass-through to the test service that records each request (path, JSON body and
 * arrival time) as it arrives, since the service's own log names the path, not the body.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Arrival {
  path: string;
  body: { group_by?: string[]; filters?: Record<string, unknown>; start_date?: string; end_date?: string } | null;
  at: number;
}

export async function recordingProxy(target: string): Promise<{ url: string; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: Arrival["body"] = null;
      try {
        body = raw.length > 0 ? (JSON.parse(raw.toString("utf8")) as Arrival["body"]) : null;
      } catch {
        body = null;
      }
      arrivals.push({ path: (req.url ?? "").split("?")[0]!, body, at: Date.now() });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v;
      fetch(`${target}${req.url ?? ""}`, { method: req.method ?? "GET", headers, ...(raw.length > 0 ? { body: raw } : {}) }).then(
        async (r) => {
          const out = Buffer.from(await r.arrayBuffer());
          const back: Record<string, string> = {};
          r.headers.forEach((v, k) => {
            if (!["content-encoding", "content-length", "transfer-encoding", "connection"].includes(k)) back[k] = v;
          });
          res.writeHead(r.status, back);
          res.end(out);
        },
        (e: unknown) => {
          res.writeHead(502);
          res.end(String(e));
        },
      );
    });
  });
  // An idle kept-alive connection is never closed from this side while the test runs: closing one
  // (Node's default after 5 s idle) can cross a request the client has just sent on it, which then
  // fails with ECONNRESET. On a busy machine the two moments meet (a token request between two
  // tests, under load). close() ends every connection.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
