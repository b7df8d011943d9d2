import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasRole } from "./roles";
import { safeCallbackPath, signInErrorMessage, throttledError } from "./messages";

describe("sign-in messages", () => {
  it("turns a throttle into minutes and every credential failure into one message", () => {
    expect(signInErrorMessage(throttledError(61))).toBe("Too many sign-in attempts. Try again in 2 minutes.");
    expect(signInErrorMessage(throttledError(30))).toBe("Too many sign-in attempts. Try again in 1 minute.");
    expect(signInErrorMessage("CredentialsSignin")).toBe("The e-mail address or password is incorrect.");
    expect(signInErrorMessage(null)).toBeNull();
  });

  it("keeps callbackUrl on this site", () => {
    expect(safeCallbackPath("/metrics?x=1")).toBe("/metrics?x=1");
    expect(safeCallbackPath("http://localhost:3000/reports", "/", "http://localhost:3000")).toBe("/reports");
    expect(safeCallbackPath("http://localhost:3000/reports")).toBe("/");
    expect(safeCallbackPath("https://evil.example/reports", "/", "http://localhost:3000")).toBe("/");
    expect(safeCallbackPath("/\t/evil.example")).toBe("/");
    expect(safeCallbackPath("/%09/evil.example")).toBe("/%09/evil.example");
    expect(safeCallbackPath("/\u0000/x")).toBe("/");
    expect(safeCallbackPath("reports")).toBe("/");
    expect(safeCallbackPath("//evil.example/x")).toBe("/");
    expect(safeCallbackPath("/\\evil.example")).toBe("/");
    expect(safeCallbackPath("javascript:alert(1)")).toBe("/");
    expect(safeCallbackPath("/login?callbackUrl=/x")).toBe("/");
    expect(safeCallbackPath(undefined)).toBe("/");
    // Same origin, but the path left over ("//") is protocol-relative: found by the property below.
    expect(safeCallbackPath("//localhost:3000//", "/", "http://localhost:3000")).toBe("/");
    expect(safeCallbackPath("http://localhost:3000//evil.example/x", "/", "http://localhost:3000")).toBe("/");
  });
});

describe("callbackUrl never leaves the dashboard", () => {
  const origin = "http://localhost:3000";
  const piece = fc.constantFrom("/", "//", "\\", "\t", "\n", "\r", "\u0000", "\u001f", "\u007f", "%09", "%2f", ":", "@", ".", "..", "evil.example", "javascript:", "http:", "https:", "data:", "?", "#", " ", "localhost:3000");
  const nasty = fc.array(fc.oneof(piece, fc.string({ maxLength: 4 }), fc.string({ unit: "grapheme", maxLength: 3 })), { maxLength: 10 }).map((p) => p.join(""));

  it("yields a path whose resolved origin is the dashboard's, for any input", () => {
    fc.assert(
      fc.property(nasty, (input) => {
        const out = safeCallbackPath(input, "/", origin);
        expect(out.startsWith("/")).toBe(true);
        expect(out.startsWith("//")).toBe(false);
        expect(/[\u0000-\u001f\u007f\\]/.test(out)).toBe(false);
        // Resolved against the dashboard, or against any page of it, it stays on the dashboard.
        expect(new URL(out, origin).origin).toBe(origin);
        expect(new URL(out, `${origin}/a/b?c`).origin).toBe(origin);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("roles", () => {
  it("orders admin ⊇ analyst ⊇ viewer; a list admits exactly its members", () => {
    expect(hasRole("admin", "analyst")).toBe(true);
    expect(hasRole("analyst", "analyst")).toBe(true);
    expect(hasRole("viewer", "analyst")).toBe(false);
    expect(hasRole("analyst", "admin")).toBe(false);
    expect(hasRole("viewer", "viewer")).toBe(true);
    expect(hasRole("admin", ["analyst"])).toBe(false);
    expect(hasRole("viewer", ["viewer", "admin"])).toBe(true);
  });
});
