// next.config.js validates the environment when a server starts (next start, next dev) and not when
// `next build` runs, which needs none; a bad configuration names every variable, never a value.
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error -- a plain JavaScript config (allowJs is off); its shape is checked by the calls below.
import nextConfig from "../next.config.js";

const config = nextConfig as (phase: string) => {
  headers: () => Promise<{ source: string; headers: { key: string }[] }[]>;
  redirects: () => Promise<{ source: string; destination: string; permanent: boolean }[]>;
};
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe("next.config.js", () => {
  it("refuses a bad environment at server start, naming each variable and no value", () => {
    process.env = { ...saved, NEXTAUTH_SECRET: "short-secret-value", UPSTREAM_BASE_URL: "", UPSTREAM_CLIENT_ID: "client", UPSTREAM_CLIENT_SECRET: "s3cret" };
    for (const phase of ["phase-production-server", "phase-development-server"]) {
      let message = "";
      try {
        config(phase);
      } catch (e) {
        message = e instanceof Error ? e.message : String(e);
      }
      expect(message).toContain("NEXTAUTH_SECRET must be at least 32 characters");
      expect(message).toContain("UPSTREAM_BASE_URL");
      expect(message).not.toContain("short-secret-value");
    }
  });

  it("builds without any environment, with the security headers on every path", async () => {
    process.env = { PATH: saved.PATH, NODE_ENV: "production" };
    const headers = await config("phase-production-build").headers();
    expect(headers[0]?.source).toBe("/:path*");
    expect(headers[0]?.headers.map((h) => h.key)).toContain("X-Content-Type-Options");
  });

  it("starts with a valid environment", () => {
    process.env = { ...saved, NEXTAUTH_SECRET: "x".repeat(32), UPSTREAM_BASE_URL: "http://localhost:4000", UPSTREAM_CLIENT_ID: "c", UPSTREAM_CLIENT_SECRET: "s", UPSTREAM_TOKEN_URL: "http://localhost:4000/api/token" };
    expect(() => config("phase-production-server")).not.toThrow();
  });

  it("keeps the addresses pages and routes had before they took their feature's name, as permanent redirects", async () => {
    process.env = { PATH: saved.PATH, NODE_ENV: "production" };
    const redirects = await config("phase-production-build").redirects();
    expect(redirects).toEqual(
      expect.arrayContaining([
        { source: "/metrics", destination: "/definitions", permanent: true },
        { source: "/api/bin-routing", destination: "/api/bin-lookup", permanent: true },
        { source: "/api/bin-routing/:path*", destination: "/api/bin-lookup/:path*", permanent: true },
        { source: "/api/alerts", destination: "/api/notifications/alerts", permanent: true },
        { source: "/api/alerts/:path*", destination: "/api/notifications/alerts/:path*", permanent: true },
        { source: "/api/subscriptions/:path*", destination: "/api/notifications/subscriptions/:path*", permanent: true },
        { source: "/api/inbox/:path*", destination: "/api/notifications/inbox/:path*", permanent: true },
      ]),
    );
  });
});
