import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/contract/errors";
import { refuseCrossSite } from "./cross-site";

const own = "http://localhost:3000";
const req = (method: string, headers: Record<string, string>) => new Request("http://localhost:3000/api/saved-reports", { method, headers });

describe("state-changing requests from another site", () => {
  it("are refused when the browser says cross-site or same-site, with or without a body", () => {
    for (const site of ["cross-site", "same-site"]) {
      for (const method of ["POST", "PATCH", "DELETE", "PUT"]) {
        expect(() => refuseCrossSite(req(method, { "sec-fetch-site": site }), own)).toThrow(ApiError);
      }
    }
  });
  it("pass from the dashboard's own pages, typed addresses and safe methods", () => {
    expect(() => refuseCrossSite(req("POST", { "sec-fetch-site": "same-origin" }), own)).not.toThrow();
    expect(() => refuseCrossSite(req("POST", { "sec-fetch-site": "none" }), own)).not.toThrow();
    expect(() => refuseCrossSite(req("GET", { "sec-fetch-site": "cross-site" }), own)).not.toThrow();
  });
  it("fall back to Origin when the client sends no Sec-Fetch-Site", () => {
    expect(() => refuseCrossSite(req("POST", { origin: "https://evil.example" }), own)).toThrow(/Cross-site/);
    expect(() => refuseCrossSite(req("DELETE", { origin: own }), own)).not.toThrow();
    // A server-side client (curl, a script) sends neither: nothing to judge by, and no cookie rides along.
    expect(() => refuseCrossSite(req("POST", {}), own)).not.toThrow();
  });
});
