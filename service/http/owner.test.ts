/** A replica's link to an owner that accepts connections and never answers: it gives up, with a 503, not a hang. */
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/contract/errors";
import { instanceKey, OwnerLink } from "./owner";
import type { RequestContext } from "./route";

let silent: Server;
let port: number;
beforeAll(async () => {
  // Takes the connection and the request, answers nothing.
  silent = createServer((socket) => socket.on("data", () => undefined));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  port = (silent.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => silent.close(() => resolve())));

describe("OwnerLink", () => {
  it("answers 503 when the owner does not answer an admission in time", async () => {
    const link = new OwnerLink(`http://127.0.0.1:${port}`, instanceKey("s".repeat(40)), 300);
    const ctx: RequestContext = { requestId: "r", clientId: null, headers: {}, now: new Date(), address: "127.0.0.1", instance: false };
    // Given up at its own 300 ms deadline, not at some later one: it settles before a timer set at
    // the same moment for ten times as long fires. Timers fire in the order they fall due however
    // busy the machine is, so the order holds where a stopwatch would not.
    let sentinelFired = false;
    const sentinel = setTimeout(() => (sentinelFired = true), 3_000);
    const failure = await link.admit({ auth: "client", bucket: "report" }, { authorization: "Bearer x", clientId: "c", clientSecret: "s" }, ctx).catch((e: unknown) => e);
    const gaveUpLate = sentinelFired;
    clearTimeout(sentinel);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(503);
    expect((failure as ApiError).internal).toMatch(/did not answer an admission within 300 ms/);
    expect(gaveUpLate, "the admission gave up only after a 3 s timer set beside its 300 ms deadline had fired").toBe(false);
    expect(ctx.clientId).toBeNull();
    link.close();
  });
});
