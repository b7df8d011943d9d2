/** A replica's link to an owner that accepts connections and never answers: it gives up, with a 503, not a hang. */
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/contract/errors";
import { instanceKey, OwnerLink } from "./owner";
import type { RequestContext } from "./server";

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
    const started = Date.now();
    const failure = await link.admit({ auth: "client", bucket: "report" }, { authorization: "Bearer x", clientId: "c", clientSecret: "s" }, ctx).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(503);
    expect((failure as ApiError).internal).toMatch(/did not answer an admission within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(ctx.clientId).toBeNull();
    link.close();
  });
});
