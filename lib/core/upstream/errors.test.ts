import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/contract/errors";
import { UpstreamError } from "./client";
import { translateUpstream, upstreamApiError } from "./errors";

describe("the one table of upstream errors", () => {
  it("says what a report's failure means and what to do", () => {
    expect(translateUpstream(new UpstreamError(429, "slow down", 7), "report")).toMatchObject({ status: 429, action: "Wait a minute and run the report again." });
    expect(translateUpstream(new UpstreamError(401, "bad token"), "report")).toMatchObject({ status: 502, message: expect.stringContaining("credentials") });
    expect(translateUpstream(new UpstreamError(500, "boom"), "report")).toMatchObject({ status: 502, message: "The reporting service failed: boom" });
  });

  it("turns a BIN lookup's failure into the dashboard API's error, Retry-After included", () => {
    const limited = upstreamApiError(new UpstreamError(429, "slow down", 7), "routing");
    expect(limited).toMatchObject({ status: 429, headers: { "Retry-After": "7" }, extra: { retry_after: 7 } });
    expect(upstreamApiError(new UpstreamError(503, "none"), "routing").message).toMatch(/No gateway is available/);
    expect(upstreamApiError(new UpstreamError(404, "no such path"), "preview")).toMatchObject({ status: 404, message: expect.stringMatching(/cannot preview routes/) });
    // An upstream that fails is "unavailable" to the caller, never the caller's fault.
    expect(upstreamApiError(new UpstreamError(500, "boom"), "routing").status).toBe(503);
    const own = new ApiError(400, "mine");
    expect(upstreamApiError(own, "routing")).toBe(own);
  });
});
