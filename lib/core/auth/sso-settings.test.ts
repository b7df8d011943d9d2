import { describe, expect, it } from "vitest";
import { EnvError, parseServerEnv, ssoSettingsOf } from "@/lib/core/env/env-schema";
import { MAPPABLE_ROLES, parseGrant, parseRoleMap } from "@/lib/core/env/sso";
import { ROLES } from "./roles";
import { discoveryUrl, grantFor, passwordRefusal } from "./sso-settings";

const base = {
  NEXTAUTH_SECRET: "x".repeat(32),
  UPSTREAM_BASE_URL: "http://127.0.0.1:4000",
  UPSTREAM_CLIENT_ID: "client",
  UPSTREAM_CLIENT_SECRET: "secret-value",
  UPSTREAM_TOKEN_URL: "http://127.0.0.1:4000/api/auth/token",
};
const sso = {
  OIDC_ISSUER: "https://login.corp.example/realms/corp",
  OIDC_CLIENT_ID: "dashboard",
  OIDC_CLIENT_SECRET: "a-client-secret",
  OIDC_ROLE_MAP: '{"bi-admins":"admin","finance":"analyst+routing"}',
};

function problems(env: Record<string, string | undefined>): string[] {
  try {
    parseServerEnv(env);
  } catch (e) {
    if (e instanceof EnvError) return e.problems;
    throw e;
  }
  return [];
}

describe("the role map", () => {
  it("knows every role, spelled as the dashboard spells them", () => {
    expect([...MAPPABLE_ROLES]).toEqual([...ROLES]);
  });

  it("reads roles, the routing permission and both", () => {
    expect(parseGrant("admin")).toEqual({ role: "admin", routing: false });
    expect(parseGrant("Analyst + routing")).toEqual({ role: "analyst", routing: true });
    expect(parseGrant("routing")).toEqual({ role: null, routing: true });
    for (const bad of ["", "owner", "admin+admin", "routing+routing", "admin+viewer", "admin+"]) expect(parseGrant(bad)).toBeNull();
  });

  it("refuses a map that is not a JSON object of known grants, or grants no role at all", () => {
    expect(() => parseRoleMap("admins=admin")).toThrow(/JSON object/);
    expect(() => parseRoleMap('["admin"]')).toThrow(/JSON object/);
    expect(() => parseRoleMap('{"x":"superuser"}')).toThrow(/group "x" must map to one of admin, analyst, viewer/);
    expect(() => parseRoleMap('{"x":1}')).toThrow(/group "x"/);
    expect(() => parseRoleMap('{"x":"routing"}')).toThrow(/at least one group to a role/);
  });

  it("gives the highest mapped role and the routing permission of any mapped group; nothing without a role", () => {
    const map = parseRoleMap('{"v":"viewer","a":"analyst","adm":"admin","r":"routing","cn=ops,ou=groups":"analyst+routing"}');
    expect(grantFor(["v", "a"], map)).toEqual({ role: "analyst", routing: false });
    expect(grantFor(["adm", "v", "r"], map)).toEqual({ role: "admin", routing: true });
    expect(grantFor("cn=ops,ou=groups", map)).toEqual({ role: "analyst", routing: true });
    expect(grantFor(["r"], map)).toBeNull();
    expect(grantFor(["A", "unknown"], map)).toBeNull();
    expect(grantFor(undefined, map)).toBeNull();
    expect(grantFor([1, { a: 1 }], map)).toBeNull();
  });

  it("joins discovery onto the issuer", () => {
    expect(discoveryUrl("https://idp.example/realms/x/")).toBe("https://idp.example/realms/x/.well-known/openid-configuration");
  });
});

describe("company sign-in settings in the environment", () => {
  it("is off without OIDC_ISSUER, and on with its defaults stated", () => {
    expect(ssoSettingsOf(parseServerEnv(base))).toBeNull();
    const s = ssoSettingsOf(parseServerEnv({ ...base, ...sso }))!;
    expect(s).toMatchObject({
      issuer: sso.OIDC_ISSUER,
      clientId: "dashboard",
      scopes: "openid email profile",
      name: "single sign-on",
      roleClaim: "groups",
      sessionMaxAgeSeconds: 3600,
      linkByEmail: false,
      ssoOnly: false,
      breakGlass: [],
    });
    expect(s.roleMap.get("finance")).toEqual({ role: "analyst", routing: true });
  });

  it("takes scopes (adding openid), a name, a claim, a lifetime, linking, SSO only and break-glass e-mails", () => {
    const s = ssoSettingsOf(
      parseServerEnv({
        ...base,
        ...sso,
        OIDC_SCOPES: "email groups",
        OIDC_PROVIDER_NAME: "Okta",
        OIDC_ROLE_CLAIM: "roles",
        OIDC_SESSION_MAX_AGE_SECONDS: "900",
        OIDC_LINK_BY_EMAIL: "true",
        OIDC_SSO_ONLY: "true",
        OIDC_BREAK_GLASS: " Root@Corp.example , ops@corp.example",
      }),
    )!;
    expect(s).toMatchObject({ scopes: "openid email groups", name: "Okta", roleClaim: "roles", sessionMaxAgeSeconds: 900, linkByEmail: true, ssoOnly: true, breakGlass: ["root@corp.example", "ops@corp.example"] });
  });

  it("names every missing or stray variable, and never echoes the secret", () => {
    expect(problems({ ...base, OIDC_ISSUER: sso.OIDC_ISSUER })).toEqual([
      "OIDC_CLIENT_ID is required when OIDC_ISSUER is set",
      "OIDC_CLIENT_SECRET is required when OIDC_ISSUER is set",
      "OIDC_ROLE_MAP is required when OIDC_ISSUER is set",
    ]);
    const stray = problems({ ...base, OIDC_CLIENT_SECRET: "do-not-print-me", OIDC_SSO_ONLY: "true" });
    expect(stray).toEqual([
      "OIDC_CLIENT_SECRET is set but OIDC_ISSUER is not; set OIDC_ISSUER to turn company sign-in on, or unset OIDC_CLIENT_SECRET",
      "OIDC_SSO_ONLY=true needs company sign-in (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ROLE_MAP)",
    ]);
    expect(stray.join(" ")).not.toContain("do-not-print-me");
  });

  it("refuses plain http except on this machine, bad maps, lifetimes, flags and break-glass lists", () => {
    expect(problems({ ...base, ...sso, OIDC_ISSUER: "http://idp.corp.example" })).toEqual(["OIDC_ISSUER must be an https URL (plain http only for localhost)"]);
    expect(problems({ ...base, ...sso, OIDC_ISSUER: "http://127.0.0.1:9000" })).toEqual([]);
    expect(problems({ ...base, ...sso, OIDC_ISSUER: "ftp://idp.corp.example" })).toEqual(["OIDC_ISSUER must be an http(s) URL"]);
    expect(problems({ ...base, ...sso, OIDC_ROLE_MAP: '{"a":"owner"}' })[0]).toMatch(/^OIDC_ROLE_MAP: group "a" must map to/);
    expect(problems({ ...base, ...sso, OIDC_SESSION_MAX_AGE_SECONDS: "86400" })).toEqual(["OIDC_SESSION_MAX_AGE_SECONDS must be a whole number from 5 to 43200"]);
    expect(problems({ ...base, ...sso, OIDC_SSO_ONLY: "yes" })).toEqual(["OIDC_SSO_ONLY must be true or false"]);
    expect(problems({ ...base, ...sso, OIDC_LINK_BY_EMAIL: "1" })).toEqual(["OIDC_LINK_BY_EMAIL must be true or false"]);
    expect(problems({ ...base, ...sso, OIDC_BREAK_GLASS: "root" })).toEqual(["OIDC_BREAK_GLASS must be e-mail addresses separated by commas"]);
    expect(problems({ ...base, ...sso, OIDC_ROLE_CLAIM: "group claim" })).toEqual(["OIDC_ROLE_CLAIM must be a claim name such as groups or roles"]);
  });
});

describe("passwordRefusal", () => {
  const local = { email: "pat@corp.example", company: false };
  const linked = { email: "kim@corp.example", company: true };
  const root = { email: "root@corp.example", company: true };

  it("leaves every password on without company sign-in", () => {
    for (const account of [local, linked, root]) expect(passwordRefusal(account, null)).toBeNull();
  });

  it("with company sign-in, refuses a linked account's password unless it is break-glass", () => {
    const configured = { ssoOnly: false, breakGlass: ["root@corp.example"] };
    expect(passwordRefusal(local, configured)).toBeNull();
    expect(passwordRefusal(linked, configured)).toBe("company_account");
    expect(passwordRefusal(root, configured)).toBeNull();
  });

  it("with SSO only, refuses every password but a break-glass account's", () => {
    const only = { ssoOnly: true, breakGlass: ["root@corp.example"] };
    expect(passwordRefusal(local, only)).toBe("sso_only");
    expect(passwordRefusal(linked, only)).toBe("sso_only");
    expect(passwordRefusal(root, only)).toBeNull();
    expect(passwordRefusal(root, { ssoOnly: true, breakGlass: [] })).toBe("sso_only");
  });
});
