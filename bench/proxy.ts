// Proxy benchmark: `npm run bench:proxy`. Starts the real service and the built dashboard
// (run `npx next build` first), signs in as an analyst, and measures in one run:
//  1. cache-hit latency of POST /api/reports/order-summary (p50, p99 over 200 calls), with where the
//     time goes: the medians of the route's Server-Timing metrics (session check, body,
//     parse, cache lookup, serialization, the handler's total) and of what is outside the handler,
//     split by two measurements interleaved with the hits: the same hits asking for no compression
//     (Accept-Encoding: identity; Next.js gzips every route answer not marked no-transform, which
//     answers of at most 4 KiB are), the same POST to a bare node:http server (the
//     floor of HTTP on loopback and the client), and a hit on a larger answer, which is gzipped; and,
//     as a second, separately labelled measurement (not the headline), the same hit and the same bare
//     POST with node:http's keep-alive client instead of fetch + res.json(), to show what the client
//     itself costs;
//  2. the time the dashboard adds to a cache miss beyond the upstream's own time (median of the
//     difference between a miss through the dashboard and the same request sent straight upstream);
//  3. upstream calls spent by a scripted session of 20 typical interactions, against a plain
//     pass-through that forwards each interaction (every page of it) to the upstream.
import { addDays } from "../lib/contract/dates";
import { OPERATION_TABLE } from "../lib/contract/operations";
import { parseServerTiming } from "../lib/core/http/server-timing";
import { spawn } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { freePort } from "../lib/core/testing/free-port";
import { machine, median, percentile } from "./lib";
import { startStack } from "./stack";

const METRIC_MEANING: Record<string, string> = {
  session: "the session check (requireUser: cookie → signed-in user, store re-check included)",
  "session-store": "of which the store's re-check (revoked? user disabled, role, password changed?); with PGlite kept until the store notifies a change",
  body: "reading the request body as text (JSON.parse is in parse)",
  parse: "JSON.parse, contract validation (zod) and the canonical query; for a body seen before, only the lookup of its kept key",
  cache: "the cache lookup (gateway.cachedAnswerByKey: the kept bytes of an exact hit)",
  submit: "a derived hit or a miss: gateway.submit",
  serialize: "serializing the answer and building the Response (an exact hit's bytes are kept)",
  total: "the route handler, start to Response",
  "session-decode": "of which decrypting the session cookie (kept per cookie value)",
  outside: "client time minus the handler's total: Next.js routing, gzip, HTTP on loopback, fetch and res.json() in the bench",
};

/** A bare node:http server answering any POST with a small JSON: the floor of one call on loopback. */
async function bareServer(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const code = `require("node:http").createServer((q, s) => { let n = 0; q.on("data", (d) => (n += d.length)); q.on("end", () => { s.setHeader("content-type", "application/json"); s.end(JSON.stringify({ bytes: n })); }); }).listen(${port}, "127.0.0.1", () => console.log("up"));`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill() };
}

/** One keep-alive connection of node:http's client, as a second client beside fetch. */
const nodeAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** POSTs `body` with node:http on `nodeAgent`, reads and parses the JSON answer; returns ms and the answer. */
function nodePost(url: string, body: string, headers: Record<string, string>): Promise<{ ms: number; answer: unknown }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = httpRequest(url, { method: "POST", agent: nodeAgent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ ms: performance.now() - t, answer: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const { env, cookie, stop } = await startStack(".bench-proxy", 4700, 3700);
  try {
    const headers = { "content-type": "application/json", cookie };

    const upstreamCalls = async () =>
      ((await (await fetch(`${env.dashboardUrl}/api/upstream/status`, { headers })).json()) as { upstream_report_calls: number }).upstream_report_calls;
    /** Runs a report through the dashboard to completion; returns ms, the answer's source and the last answer's Server-Timing. */
    const viaDashboard = async (op: "order-summary" | "cohort", body: object, extra: Record<string, string> = {}) => {
      const t = performance.now();
      let res = await fetch(`${env.dashboardUrl}/api/reports/${op}?wait=10000`, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
      let job = (await res.json()) as { id?: string; status: { state: string; result?: { source: string } } };
      if (res.status >= 400) throw new Error(JSON.stringify(job));
      while (job.status.state !== "done") {
        if (job.status.state === "failed") throw new Error(JSON.stringify(job));
        res = await fetch(`${env.dashboardUrl}/api/reports/jobs/${job.id}?wait=10000`, { headers });
        job = (await res.json()) as typeof job;
      }
      const ms = performance.now() - t;
      return { ms, source: job.status.result?.source ?? "?", timing: parseServerTiming(res.headers.get("server-timing")) };
    };
    const tokenRes = await fetch(`${env.serviceUrl}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(env.client) });
    const token = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
    const direct = async (path: string, body: object) => {
      const t = performance.now();
      let pages = 0;
      for (let offset = 0; ; offset += 1000) {
        pages++;
        const r = await fetch(`${env.serviceUrl}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-client-id": env.client.client_id, "x-client-secret": env.client.client_secret },
          body: JSON.stringify({ ...body, limit: 1000, offset }),
        });
        const j = (await r.json()) as { pagination: { has_more: boolean } };
        if (!j.pagination.has_more) break;
      }
      return { ms: performance.now() - t, pages };
    };

    const end = env.endDate;
    // 1. Cache hits.
    const hitBody = { start_date: addDays(end, -29), end_date: end, group_by: ["date"], metrics: ["attempts", "approvals", "revenue"] };
    // Three months by date: about 6.5 KB, over the 4 KiB below which answers go uncompressed.
    const largeBody = { ...hitBody, start_date: addDays(end, -89) };
    await viaDashboard("order-summary", hitBody);
    await viaDashboard("order-summary", largeBody);
    for (let i = 0; i < 20; i++) await viaDashboard("order-summary", hitBody); // warm-up
    const hits: number[] = [];
    const identityHits: number[] = [];
    const largeHits: number[] = [];
    const largeIdentityHits: number[] = [];
    const floor: number[] = [];
    const nodeHits: number[] = [];
    const nodeFloor: number[] = [];
    const timings: Record<string, number>[] = [];
    const bare = await bareServer();
    try {
      for (let i = 0; i < 200; i++) {
        const r = await viaDashboard("order-summary", hitBody);
        if (r.source !== "cache") throw new Error(`expected a cache hit, got ${r.source}`);
        if (r.timing.total === undefined) throw new Error("the answer has no Server-Timing header");
        hits.push(r.ms);
        timings.push({ ...r.timing, outside: r.ms - r.timing.total });
        identityHits.push((await viaDashboard("order-summary", hitBody, { "accept-encoding": "identity" })).ms);
        largeHits.push((await viaDashboard("order-summary", largeBody)).ms);
        largeIdentityHits.push((await viaDashboard("order-summary", largeBody, { "accept-encoding": "identity" })).ms);
        const t = performance.now();
        await (await fetch(bare.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(hitBody) })).json();
        floor.push(performance.now() - t);
        const viaNode = await nodePost(`${env.dashboardUrl}/api/reports/order-summary?wait=10000`, JSON.stringify(hitBody), headers);
        if ((viaNode.answer as { status?: { result?: { source?: string } } }).status?.result?.source !== "cache") throw new Error("expected a cache hit with node:http");
        nodeHits.push(viaNode.ms);
        nodeFloor.push((await nodePost(bare.url, JSON.stringify(hitBody), { "content-type": "application/json" })).ms);
      }
    } finally {
      bare.stop();
    }
    const metricNames = [...new Set(timings.flatMap((t) => Object.keys(t)))];
    const breakdown = metricNames
      .map((name) => {
        const v = timings.map((t) => t[name] ?? 0);
        return `| ${name} | ${median(v).toFixed(2)} | ${percentile(v, 99).toFixed(2)} | ${METRIC_MEANING[name] ?? ""} |`;
      })
      .join("\n");
    const gzipMs = median(hits) - median(identityHits);
    const largeGzipMs = median(largeHits) - median(largeIdentityHits);
    const answerBytes = async (body: object, encoding: string) => {
      const r = await fetch(`${env.dashboardUrl}/api/reports/order-summary`, { method: "POST", headers: { ...headers, "accept-encoding": encoding }, body: JSON.stringify(body) });
      // fetch decompresses; the bytes on the wire are what was sent before that.
      const text = await r.text();
      return { bytes: Buffer.byteLength(text), encoding: r.headers.get("content-encoding") ?? "identity" };
    };
    const small = await answerBytes(hitBody, "gzip");
    const large = await answerBytes(largeBody, "gzip");
    const frameworkMs = median(identityHits) - median(floor) - median(timings.map((t) => t.total!));

    // 2. Added time on a miss: distinct requests, each through the dashboard and straight upstream.
    const added: number[] = [];
    const missMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const body = { start_date: addDays(end, -60 - i), end_date: addDays(end, -i), group_by: ["date", "gateway_id"], metrics: ["attempts", "revenue"] };
      const viaD = await viaDashboard("order-summary", body);
      if (viaD.source !== "upstream") throw new Error(`expected a miss, got ${viaD.source}`);
      const up = await direct(OPERATION_TABLE.orders.servicePath, body);
      added.push(viaD.ms - up.ms);
      missMs.push(viaD.ms);
    }

    // 3. A scripted session of 20 typical interactions.
    const s = addDays(end, -89);
    const base = { start_date: s, end_date: end, group_by: ["date", "gateway_id"], metrics: ["attempts", "approvals", "revenue", "cb_count", "refund_amount"] };
    const session: object[] = [
      base,
      { ...base, metrics: ["attempts", "approvals"] }, // fewer metrics
      { ...base, metrics: ["revenue"] },
      { ...base, start_date: addDays(end, -29) }, // narrow the range
      { ...base, start_date: addDays(end, -6) },
      { ...base, filters: { gateway_id: [3, 7] } }, // filter a grouped dimension
      { ...base, group_by: ["gateway_id"] }, // coarser grouping
      { ...base, group_by: ["date"] },
      base, // re-sort / come back (a table sort is client-side; the request repeats)
      { ...base, group_by: ["date", "gateway_id", "card_type"], metrics: ["attempts", "approvals", "revenue"] }, // a new breakdown
      { ...base, group_by: ["date", "card_type"], metrics: ["approvals"] },
      { ...base, group_by: ["card_type"], metrics: ["attempts", "approvals"], filters: { gateway_id: 5 } },
      { ...base, start_date: addDays(end, -13), group_by: ["gateway_id", "card_type"], metrics: ["revenue"] },
      { start_date: addDays(end, -89), end_date: end, group_by: ["date", "sales_type"], metrics: ["attempts", "approvals"] }, // a new question
      { start_date: addDays(end, -89), end_date: end, group_by: ["sales_type"], metrics: ["approvals"] },
      { start_date: addDays(end, -29), end_date: end, group_by: ["date"], metrics: ["attempts"], filters: { sales_type: "Rebills" } },
      base, // back to the first report
      { ...base, metrics: ["cb_count"], filters: { gateway_id: 3 } },
      { ...base, start_date: addDays(end, -59), group_by: ["gateway_id"], metrics: ["refund_amount"] },
      { ...base, group_by: ["date"], metrics: ["approvals", "revenue"], start_date: addDays(end, -44) },
    ];
    const before = await upstreamCalls();
    let passThrough = 0;
    for (const body of session) {
      await viaDashboard("order-summary", body);
      passThrough += (await direct(OPERATION_TABLE.orders.servicePath, body)).pages;
    }
    const spent = (await upstreamCalls()) - before;

    const date = new Date().toISOString().slice(0, 10);
    console.log(`### Dashboard proxy (${date})

Machine: ${machine()}. Real service (150 days × 60 orders/day) and the built dashboard on loopback; analyst session.

| measure | result | target |
|---|---:|---:|
| cache-hit latency of POST /api/reports/order-summary, p50 | ${median(hits).toFixed(1)} ms | ≤ 10 ms |
| cache-hit latency, p99 | ${percentile(hits, 99).toFixed(1)} ms | |
| time added to a cache miss beyond the upstream's own time (median of 20) | ${median(added).toFixed(1)} ms | ≤ 15 ms |
| cache-miss total through the dashboard (median) | ${median(missMs).toFixed(1)} ms | |
| upstream calls for a scripted session of 20 interactions | ${spent} | ≤ ⅓ of pass-through |
| the same session through a plain pass-through | ${passThrough} | |
| ratio | ${(spent / passThrough).toFixed(2)} | ≤ 0.33 |

Where a cache hit's time goes (Server-Timing of the 200 hits, ms; the parts are medians each, so they need not add up to the p50):

| part | median | p99 | what |
|---|---:|---:|---|
${breakdown}

What is outside the handler, from measurements interleaved with the hits (medians):

| part | ms | how |
|---|---:|---|
| the same hits without compression (Accept-Encoding: identity), p50 | ${median(identityHits).toFixed(2)} | |
| Next.js's gzip of the answer and the client's gunzip | ${gzipMs.toFixed(2)} | hit p50 − identity p50 (the answer: ${small.bytes} bytes, sent ${small.encoding}) |
| the same POST to a bare node:http server (HTTP on loopback, the client) | ${median(floor).toFixed(2)} | |
| Next.js's own request handling (routing, request/response adapters) | ${frameworkMs.toFixed(2)} | identity p50 − bare − handler total |
| a larger hit (three months by date), p50 | ${median(largeHits).toFixed(2)} | ${large.bytes} bytes, sent ${large.encoding} |
| the same without compression, p50 | ${median(largeIdentityHits).toFixed(2)} | gzip costs ${largeGzipMs.toFixed(2)} ms there |

A second client, not the headline: the same measurements, interleaved, with node:http's keep-alive client (one connection, body read and JSON.parse) instead of fetch + res.json():

| part | ms | how |
|---|---:|---|
| the same hits, p50 | ${median(nodeHits).toFixed(2)} | p99 ${percentile(nodeHits, 99).toFixed(2)} |
| the same POST to the bare node:http server, p50 | ${median(nodeFloor).toFixed(2)} | |
| what fetch + res.json() add over node:http, on the hits | ${(median(hits) - median(nodeHits)).toFixed(2)} | hit p50 − node:http hit p50 |
| Next.js's own request handling, by this client | ${(median(nodeHits) - median(nodeFloor) - median(timings.map((t) => t.total!))).toFixed(2)} | node:http hit p50 − its bare p50 − handler total |
`);
  } finally {
    nodeAgent.destroy();
    stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
