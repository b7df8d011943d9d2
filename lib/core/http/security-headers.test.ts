/**
 * Every page path gets the page policy (scripts only with this request's nonce), a path that ends in
 * an extension included: the proxy's matcher, compiled by Next's own matcher code, leaves out only
 * Next's build output, the API and the files in public/.
 */
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { config, proxy } from "@/proxy";

const require = createRequire(import.meta.url);
const { getMiddlewareMatchers } = require("next/dist/build/analysis/get-page-static-info") as {
  getMiddlewareMatchers(matcher: string[], nextConfig: object): { regexp: string }[];
};
const matchers = getMiddlewareMatchers(config.matcher, {}).map((m) => new RegExp(m.regexp));
const runsProxy = (path: string) => matchers.some((re) => re.test(path));

describe("the proxy's matcher", () => {
  it("runs for every page path, those ending in an extension too", () => {
    for (const path of ["/", "/explore", "/share/abc", "/share/abc.png", "/share/abc.js", "/reports/x.csv", "/login.html", "/audit.txt"]) {
      expect(runsProxy(path), path).toBe(true);
    }
  });

  it("leaves out Next's build output, the API and the public files", () => {
    for (const path of ["/_next/static/chunks/app.js", "/_next/image", "/api/health", "/api/share/abc.png", ...readdirSync("public").map((f) => `/${f}`)]) {
      expect(runsProxy(path), path).toBe(false);
    }
  });

  it("gives a share path with an extension the page policy with its nonce", async () => {
    const res = await proxy(new NextRequest("http://localhost:3000/share/abc.png"));
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  });
});
