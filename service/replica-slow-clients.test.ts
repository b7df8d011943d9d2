/**
 * A replica under slow and hostile clients, all real: the owner on a real socket over DuckDB and
 * ClickHouse, the replica in a process of its own (`service/main.ts`), and 70 raw sockets that
 * dribble their requests a byte at a time. A real client's token and report calls through the
 * replica keep the latency they had before the slow sockets came; the slow sockets are cut off at
 * the replica's header and request deadlines; and one address cannot take every relay to the owner.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATION_TABLE } from "@/lib/contract";
import { freePort } from "@/lib/core/testing/free-port";
import { clickhouseServerBinary } from "./testing/clickhouse";
import { startTestService, TEST_TOKEN_SECRET, type TestService } from "./testing/harness";

const ORDERS = OPERATION_TABLE.orders.servicePath;
const HEADERS_TIMEOUT_S = 3;
const REQUEST_TIMEOUT_S = 5;
const PER_CLIENT = 4;
const QUEUE_PER_CLIENT = 16;

let owner: TestService;
let replica: ChildProcess | null = null;
let replicaUrl: string;
let replicaPort: number;
const replicaLog: string[] = [];

async function waitForHealth(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up:\n${replicaLog.join("")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One raw connection that sends its request a byte at a time, every `everyMs`, and notes when the server closes it. */
interface Dribbler {
  socket: Socket;
  closedAt: number | null;
  answer: string;
  stop(): void;
}

function dribble(from: string, head: string, rest: string, everyMs: number): Dribbler {
  const socket = connect({ host: "127.0.0.1", port: replicaPort, localAddress: from });
  const d: Dribbler = { socket, closedAt: null, answer: "", stop: () => undefined };
  let i = 0;
  let timer: NodeJS.Timeout | undefined;
  socket.on("connect", () => {
    socket.write(head);
    timer = setInterval(() => {
      if (i < rest.length && !socket.destroyed) socket.write(rest[i++]!);
    }, everyMs);
  });
  socket.on("data", (c: Buffer) => (d.answer += c.toString("latin1")));
  socket.on("error", () => undefined);
  socket.on("close", () => {
    d.closedAt = Date.now();
    clearInterval(timer);
  });
  d.stop = () => {
    clearInterval(timer);
    socket.destroy();
  };
  return d;
}

/** 64 slow bodies to the relayed paths (as many as the owner link had connections) and 6 slow headers. */
function slowClients(from: string): Dribbler[] {
  const out: Dribbler[] = [];
  const body = JSON.stringify({ client_id: "cl_slow", client_secret: "s".repeat(400) });
  for (let i = 0; i < 64; i++) {
    const path = i % 2 === 0 ? "/api/auth/token" : "/api/bin-routing/route";
    out.push(dribble(from, `POST ${path} HTTP/1.1\r\nHost: replica\r\nContent-Type: application/json\r\nAuthorization: Bearer x.y.z\r\nContent-Length: ${body.length}\r\n\r\n`, body, 200));
  }
  for (let i = 0; i < 6; i++) out.push(dribble(from, "POST /api/auth/token HTTP/1.1\r\n", "Host: replica\r\nX-Padding: " + "p".repeat(400), 200));
  return out;
}

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]!;
}

/** Latencies (ms) of `rounds` token + report calls through the replica; a call over 10 s counts as 10 s. */
async function measure(rounds: number, client: { client_id: string; client_secret: string }): Promise<number[]> {
  const out: number[] = [];
  const timed = async (fn: () => Promise<Response>) => {
    const t0 = performance.now();
    try {
      const r = await fn();
      expect(r.status).toBe(200);
      await r.arrayBuffer();
    } catch (e) {
      if (!(e instanceof Error && e.name === "TimeoutError")) throw e;
    }
    out.push(performance.now() - t0);
  };
  for (let i = 0; i < rounds; i++) {
    let token = "";
    await timed(async () => {
      const r = await fetch(`${replicaUrl}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_id: client.client_id, client_secret: client.client_secret }), signal: AbortSignal.timeout(10_000) });
      const j = (await r.clone().json()) as { data?: { access_token: string } };
      if (!j.data) throw new Error(`token through the replica: ${r.status} ${JSON.stringify(j)}`);
      token = j.data.access_token;
      return r;
    });
    await timed(() =>
      fetch(`${replicaUrl}${ORDERS}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-client-id": client.client_id, "x-client-secret": client.client_secret },
        body: JSON.stringify({ start_date: "2025-07-01", end_date: "2025-07-31", group_by: ["date"] }),
        signal: AbortSignal.timeout(10_000),
      }),
    );
  }
  return out;
}

describe.skipIf(!clickhouseServerBinary())("a replica under slow clients", () => {
  beforeAll(async () => {
    owner = await startTestService({
      engine: "clickhouse",
      data: { days: 40, ordersPerDay: 20 },
      env: { REPORT_RATE_LIMIT: "1000000", TOKEN_RATE_LIMIT: "1000000", TOKEN_ADDRESS_RATE_LIMIT: "1000000" },
    });
    replicaPort = await freePort();
    replicaUrl = `http://127.0.0.1:${replicaPort}`;
    replica = spawn(process.execPath, ["--import", "tsx", "service/main.ts"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET,
        SERVICE_ENGINE: "clickhouse",
        CLICKHOUSE_URL: owner.clickhouse!.urls.join(","),
        SERVICE_OWNER_URL: owner.url,
        SERVICE_PORT: String(replicaPort),
        SERVICE_LOG: "silent",
        SERVICE_HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_S),
        SERVICE_REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_S),
        SERVICE_RELAY_PER_CLIENT: String(PER_CLIENT),
        SERVICE_RELAY_QUEUE_PER_CLIENT: String(QUEUE_PER_CLIENT),
      },
    });
    replica.stdout?.on("data", (c: Buffer) => replicaLog.push(c.toString()));
    replica.stderr?.on("data", (c: Buffer) => replicaLog.push(c.toString()));
    await waitForHealth(replicaUrl, 60_000);
  });
  afterAll(async () => {
    if (replica && replica.exitCode === null) {
      const exited = new Promise((r) => replica!.once("exit", r));
      replica.kill("SIGTERM");
      await exited;
    }
    await owner?.stop();
  });

  it("keeps a real client's token and report latency while 70 slow connections dribble, and cuts the slow ones off at its deadlines", async () => {
    const client = await owner.newClient("steady");
    await measure(2, client); // warm both paths
    const baseline = await measure(10, client);

    const slow = slowClients("127.0.0.9");
    const started = Date.now();
    try {
      await new Promise((r) => setTimeout(r, 500)); // every slow socket has sent its head
      const loaded = await measure(10, client);
      console.log(`token+report through the replica: baseline p95 ${p95(baseline).toFixed(0)} ms; under 70 slow connections p95 ${p95(loaded).toFixed(0)} ms`);
      // Against the same calls' latency measured just before, on the same machine in the same run:
      // held behind the slow connections, a call would wait for their deadline (seconds), whatever
      // the machine's speed.
      expect(p95(loaded), `p95 under the slow connections against ${p95(baseline).toFixed(0)} ms before them`).toBeLessThan(2 * p95(baseline) + 1_000);

      // The slow senders are cut off at the deadlines (header or whole request, checked every second).
      await new Promise((r) => setTimeout(r, Math.max(0, started + (REQUEST_TIMEOUT_S + 2.5) * 1000 - Date.now())));
      for (let look = 0; slow.some((d) => d.closedAt === null) && look < 50; look++) await new Promise((r) => setTimeout(r, 200));
      const open = slow.filter((d) => d.closedAt === null);
      expect(open).toHaveLength(0);
      // The slow heads at the header deadline, before the request deadline cut any slow body.
      const heads = slow.slice(64);
      const firstBodyCut = Math.min(...slow.slice(0, 64).map((d) => d.closedAt!));
      for (const d of heads) expect(d.closedAt!, "a slow head was cut after the first slow body").toBeLessThanOrEqual(firstBodyCut);
      for (const d of slow) expect(d.answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      for (const d of slow) d.stop();
    }
  });

  it("checks a relayed routing call's token itself: a forged or missing one is refused (401) without reaching the owner", async () => {
    const routed = () => owner.logLines.filter((l) => l.includes('"path":"/api/bin-routing/route"')).length;
    const before = routed();
    const forged = `${owner.token.slice(0, -4)}AAAA`;
    for (const authorization of [`Bearer ${forged}`, "Basic abc", undefined]) {
      const r = await fetch(`${replicaUrl}/api/bin-routing/route`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ bin: "000000", customer_id: "c1" }),
      });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    }
    expect(routed()).toBe(before);
  });

  it("bounds the relayed calls one address has at the owner: the rest wait in its own line (a full line is refused 429), never in front of another address's call", async () => {
    // Token requests for made-up client ids: each costs the owner a scrypt, so they pile up there.
    const call = (from: string, i: number) =>
      new Promise<{ status: number; body: string; retryAfter: string | undefined }>((resolve, reject) => {
        const text = JSON.stringify({ client_id: `cl_made_up_${i}`, client_secret: "x" });
        const req = request(
          { host: "127.0.0.1", port: replicaPort, path: "/api/auth/token", method: "POST", localAddress: from, agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
          (res) => {
            let body = "";
            res.on("data", (c: Buffer) => (body += c.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers["retry-after"] as string | undefined }));
          },
        );
        req.on("error", reject);
        req.end(text);
      });
    const client = await owner.newClient("beside the burst");
    let burstAnswered = 0;
    const [burst, other] = await Promise.all([
      Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          call("127.0.0.10", i).then((r) => {
            if (r.status === 401) burstAnswered++;
            return r;
          }),
        ),
      ),
      // Another address meanwhile: its call does not wait behind the first one's line.
      (async () => {
        await new Promise((r) => setTimeout(r, 50));
        const t0 = performance.now();
        const r = await fetch(`${replicaUrl}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_id: client.client_id, client_secret: client.client_secret }) });
        return { status: r.status, ms: performance.now() - t0, burstAnsweredBefore: burstAnswered };
      })(),
    ]);
    const refused = burst.filter((r) => r.status === 429);
    const answered = burst.filter((r) => r.status === 401);
    expect(refused.length + answered.length).toBe(60);
    expect(answered.length).toBeGreaterThanOrEqual(PER_CLIENT + QUEUE_PER_CLIENT);
    expect(refused.length).toBeGreaterThan(0);
    const j = JSON.parse(refused[0]!.body) as { error: { type: string }; retry_after: number; message: string };
    expect(j.error.type).toBe("RateLimitError");
    expect(j.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.retryAfter).toBe(String(j.retry_after));
    expect(j.message).toContain(`${PER_CLIENT} calls from your address are being answered and ${QUEUE_PER_CLIENT} more are already waiting`);
    expect(other.status).toBe(200);
    // Answered while the first address's line was still being worked through (each of its calls
    // costs the owner a scrypt, PER_CLIENT at a time), not after it: order, which load cannot change.
    expect(other.burstAnsweredBefore, `the other address's call (${other.ms.toFixed(0)} ms) was answered after ${other.burstAnsweredBefore} of the ${answered.length} answered calls of the burst`).toBeLessThan(answered.length - PER_CLIENT);
  });
});
