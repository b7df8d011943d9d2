/** Helpers shared by the routing tests: the service in a child process, many HTTP calls over a bounded keep-alive pool, reference data. */
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import type { BinRoutingResponse } from "@/lib/contract/schemas";
import type { Database } from "../db";
import { TEST_TOKEN_SECRET } from "../testing/harness";

/** The real service in a child process on `dbPath` (so a test can SIGKILL it), once it listens. */
export async function startServiceChild(dbPath: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; exited: Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "service/main.ts"], {
    env: { ...process.env, SERVICE_DB: dbPath, SERVICE_PORT: "0", SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET, ROUTING_RATE_LIMIT: "1000000", SERVICE_LOG: "json", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      if (line.includes('"msg":"listening"')) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`service exited (${code}) before listening`)));
  });
  return { child, url, exited };
}

export interface CallResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary fields
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** POSTs JSON over its own keep-alive pool (so thousands of concurrent calls queue on `sockets` connections). */
export function httpPoster(baseUrl: string, headers: Record<string, string>, sockets = 100) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const u = new URL(baseUrl);
  const post = (path: string, body: unknown): Promise<CallResult> =>
    new Promise((resolve, reject) => {
      const data = typeof body === "string" ? body : JSON.stringify(body);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path,
          method: "POST",
          agent,
          headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(data) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            try {
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")), headers: res.headers });
            } catch (e) {
              reject(e instanceof Error ? e : new Error(String(e)));
            }
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(data);
    });
  return { post, route: (body: unknown) => post("/api/bin-routing/route", body), close: () => agent.destroy() };
}

/** Orders answers by the group's call number and checks they form one unbroken sequence from `first`. */
export function bySequence(answers: readonly BinRoutingResponse[], first = 1): BinRoutingResponse[] {
  const sorted = [...answers].sort((a, b) => a.session_info.total_calls - b.session_info.total_calls);
  sorted.forEach((a, i) => {
    if (a.session_info.total_calls !== first + i) throw new Error(`call numbers are not a sequence: expected ${first + i}, got ${a.session_info.total_calls}`);
  });
  return sorted;
}

/** BINs of the reference data grouped by bank (6-digit BINs only), banks with the most BINs first. */
export async function binsByBank(db: Database): Promise<{ bank: string; bins: string[] }[]> {
  const rows = await db.all<{ bin: string; bank: string }>("SELECT bin, bank FROM bins WHERE length(bin) = 6 ORDER BY bin");
  const m = new Map<string, string[]>();
  for (const r of rows) m.set(r.bank, [...(m.get(r.bank) ?? []), r.bin]);
  return [...m.entries()].map(([bank, bins]) => ({ bank, bins })).sort((a, b) => b.bins.length - a.bins.length || (a.bank < b.bank ? -1 : 1));
}

export const chiSquare = (counts: readonly number[]) => {
  const n = counts.reduce((a, b) => a + b, 0);
  const e = n / counts.length;
  return counts.reduce((s, c) => s + ((c - e) * (c - e)) / e, 0);
};
