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
    expect(safeCallbackPath("http://localhost:3000/reports")).toBe("/reports");
    expect(safeCallbackPath("//evil.example/x")).toBe("/");
    expect(safeCallbackPath("/\\evil.example")).toBe("/");
    expect(safeCallbackPath("javascript:alert(1)")).toBe("/");
    expect(safeCallbackPath("/login?callbackUrl=/x")).toBe("/");
    expect(safeCallbackPath(undefined)).toBe("/");
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
