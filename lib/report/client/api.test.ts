import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RequestError } from "@/lib/core/api-client/fetch";
import { runReport, type JobResult, type JobView, type Progress } from "./api";

const request = { start_date: "2025-07-01", end_date: "2025-07-31", group_by: ["date"] };
const result: JobResult = { source: "upstream", fetched_at: "2025-07-31T12:00:00.000Z", upstream_calls: 1, total: 0, data: [] };
const job = (status: JobView["status"]): JobView => ({ id: "job1", operation: "orders", query: request, created_at: "2025-07-31T12:00:00.000Z", status });
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

let calls: { url: string; method: string }[];
function serve(answers: ((url: string, init: RequestInit) => Response)[]) {
  calls = [];
  let i = 0;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit = {}) => {
      calls.push({ url, method: init.method ?? "GET" });
      if (init.method === "DELETE") return json(200, job({ state: "cancelled" }));
      const next = answers[Math.min(i++, answers.length - 1)]!;
      if (init.signal?.aborted) throw new DOMException("aborted", "AbortError");
      return next(url, init);
    }),
  );
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("running a report", () => {
  it("takes an answer from the cache in one call", async () => {
    serve([() => json(200, { status: { state: "done", result }, query: request })]);
    await expect(runReport("orders", request, { signal: new AbortController().signal })).resolves.toEqual(result);
    expect(calls).toEqual([{ url: "/api/reports/order-summary?wait=2000", method: "POST" }]);
  });

  it("polls a job (long polling) and reports its progress until done", async () => {
    serve([
      () => json(202, job({ state: "queued", position: 1, estimated_start: new Date(Date.now() + 3000).toISOString(), estimated_done: new Date(Date.now() + 3000).toISOString(), call: 1, calls: 1, calls_exact: true })),
      () => json(200, job({ state: "fetching", page: 1, pages: 2, piece: 1, pieces: 1, call: 1, calls: 2, calls_exact: true })),
      () => json(200, job({ state: "done", result })),
    ]);
    const seen: string[] = [];
    const p = runReport("cohort", request, { signal: new AbortController().signal, onProgress: (x: Progress) => seen.push(x.status.state) });
    await vi.runAllTimersAsync();
    await expect(p).resolves.toEqual(result);
    expect(seen).toEqual(["submitting", "queued", "fetching", "done"]);
    expect(calls.map((c) => c.url)).toEqual(["/api/reports/cohort?wait=2000", "/api/reports/jobs/job1?wait=3000", "/api/reports/jobs/job1?wait=750"]);
  });

  it("fails with the job's reason and what to do", async () => {
    serve([() => json(200, job({ state: "failed", error: { status: 502, message: "The reporting service failed", action: "Try again later." } }))]);
    const e = await runReport("orders", request, { signal: new AbortController().signal }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestError);
    expect(e).toMatchObject({ status: 502, message: "The reporting service failed", action: "Try again later." });
  });

  it("turns an error envelope into a message with details", async () => {
    serve([
      () =>
        json(400, {
          success: false,
          code: 400,
          message: "end_date must not be before start_date",
          error: { type: "BadRequestError", details: [{ path: "end_date", message: "must not be before start_date" }] },
        }),
    ]);
    const e = (await runReport("orders", request, { signal: new AbortController().signal }).catch((x: unknown) => x)) as RequestError;
    expect(e.message).toBe("end_date must not be before start_date");
    expect(e.details).toHaveLength(1);
    expect(e.action).toMatch(/Change/);
  });

  it("cancels the job on the server when aborted", async () => {
    serve([() => json(202, job({ state: "queued", position: 0, estimated_start: new Date(Date.now() + 60_000).toISOString(), estimated_done: new Date(Date.now() + 60_000).toISOString(), call: 1, calls: 1, calls_exact: true }))]);
    const controller = new AbortController();
    const seen: string[] = [];
    const p = runReport("orders", request, { signal: controller.signal, onProgress: (x) => seen.push(x.status.state) }).catch((x: unknown) => x);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await vi.runAllTimersAsync();
    await p;
    expect(calls.at(-1)).toEqual({ url: "/api/reports/jobs/job1", method: "DELETE" });
    expect(seen.at(-1)).toBe("cancelled");
  });
});
