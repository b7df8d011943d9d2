import { describe, expect, it, vi } from "vitest";
import { ApiError } from "./errors";

describe("ApiError across copies of its module", () => {
  it("is recognised when another bundle made it (instrumentation and routes are compiled apart)", async () => {
    vi.resetModules();
    const copy = "./errors?copy"; // another module instance, as another bundle would hold
    const other = (await import(/* @vite-ignore */ copy)) as typeof import("./errors");
    expect(other.ApiError).not.toBe(ApiError); // a second copy of the class, as in another bundle
    const refused: unknown = other.ApiError.badRequest("filters.product_id: not an integer");
    expect(refused instanceof ApiError).toBe(true);
    expect(new Error("boom") instanceof ApiError).toBe(false);
    const nothing: unknown = null;
    expect(nothing instanceof ApiError).toBe(false);
  });
});
