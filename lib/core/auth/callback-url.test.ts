/**
 * A malformed `callbackUrl` at sign-in: refused with a reason by the sign-in routes' check, and
 * whatever the check lets through is handled by next-auth itself (its own request handling, the
 * dashboard's options) without a 500, an unsafe target becoming the home page.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
/** next-auth's core request handler (not among its package's exports, so typed here by what is used). */
type AuthHandlerType = (p: { req: Record<string, unknown>; options: unknown }) => Promise<{ status?: number; cookies?: { name: string; value: string }[] }>;
import { describe, expect, it, vi } from "vitest";

vi.mock("server-only", () => ({}));
vi.mock("@/lib/core/env/env", () => ({ serverEnv: () => ({ NEXTAUTH_URL: "http://localhost:3000", NEXTAUTH_SECRET: "a-test-secret-of-at-least-32-characters", TRUSTED_PROXY_HOPS: 1 }) }));
const { authOptionsWith } = await import("./options");
const authOptions = authOptionsWith();
// next-auth exports its core only to its own routes; the file is loaded directly.
const { AuthHandler } = createRequire(import.meta.url)(join(process.cwd(), "node_modules/next-auth/core/index.js")) as { AuthHandler: AuthHandlerType };

import { invalidCallbackUrl } from "./callback-url";

const BAD = ["http://[", "https://exa mple.com/%", "http://localhost:3000:99999/x", "javascript:alert(1)", "//evil.example/x"];

describe("a malformed callbackUrl at sign-in", () => {
  for (const callbackUrl of BAD) {
    it(`answers ${JSON.stringify(callbackUrl)} without an error`, async () => {
      const asked = new Request(`http://localhost:3000/api/auth/csrf?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      const cookie = new Request("http://localhost:3000/api/auth/session", { headers: { cookie: `next-auth.callback-url=${encodeURIComponent(callbackUrl)}` } });
      if (invalidCallbackUrl(asked)) {
        expect(invalidCallbackUrl(asked)).toBe("callbackUrl must be a path on this site, such as /explore");
        expect(invalidCallbackUrl(cookie)).toMatch(/cookie is not a URL/);
        return;
      }
      const res = await AuthHandler({
        req: { action: "csrf", method: "GET", query: { callbackUrl }, headers: {}, cookies: {}, host: "http://localhost:3000" },
        options: { ...authOptions, secret: "a-test-secret-of-at-least-32-characters" },
      });
      expect(res.status ?? 200).toBeLessThan(400);
      const kept = res.cookies?.find((c) => c.name.endsWith("next-auth.callback-url"));
      if (kept) expect(kept.value).toBe("http://localhost:3000/");
    });
  }
});
