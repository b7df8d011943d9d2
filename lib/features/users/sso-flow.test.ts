/**
 * Company sign-in end to end against a real OpenID Connect provider (oidc-provider, started here on
 * a free port, with users in groups): next-auth's own request handler with the dashboard's options
 * and the real store, driven as a browser drives it (cookies kept per site, every redirect followed).
 *
 * Proves the code flow with PKCE, state and nonce as next-auth checks them: a wrong state, a replayed
 * code and a foreign issuer are refused and sign nobody in; the mapped role at every sign-in; the
 * SSO session's bounded lifetime; the redirect rule; the client's address in the audit log and the
 * refusals counted; "SSO only" with its break-glass account, also for sessions made before the
 * setting changed; a linked account's password.
 */
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decode, type JWT } from "next-auth/jwt";
import type { AuthOptions } from "next-auth";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startTestIdp, type IdpUser, type TestIdp } from "@/lib/core/testing/oidc-idp";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { auditRepo } from "@/lib/core/audit/store";
import { hashPassword } from "@/lib/core/auth/password";
import { usersRepo } from "@/lib/core/auth/users";
import { parseServerEnv } from "@/lib/core/env/env-schema";

const state = vi.hoisted(() => ({ env: null as unknown, headers: null as Headers | null }));
vi.mock("server-only", () => ({}));
vi.mock("@/lib/core/env/env", () => ({ serverEnv: () => state.env }));
// The request next-auth serves, as a route handler sees it; outside one (null) next/headers throws.
vi.mock("next/headers", () => ({ headers: () => (state.headers ? Promise.resolve(state.headers) : Promise.reject(new Error("outside a request"))) }));

const { authOptionsWith, currentSessionUser } = await import("@/lib/core/auth/options");
const { ssoSignIn } = await import("./sso");

type Cookie = { name: string; value: string; options?: { expires?: Date; maxAge?: number } };
type AuthHandlerType = (p: { req: Request; options: AuthOptions }) => Promise<{ status?: number; redirect?: string; body?: unknown; cookies?: Cookie[] }>;
const { AuthHandler } = createRequire(import.meta.url)(join(process.cwd(), "node_modules/next-auth/core/index.js")) as { AuthHandler: AuthHandlerType };

const DASHBOARD = "http://localhost:3000";
/** Where next-auth sends a callback it refuses (its error route, which shows the sign-in page with the message). */
const REFUSED = `${DASHBOARD}/api/auth/error?error=OAuthCallback`;
const SECRET = "a-test-secret-of-at-least-32-characters-long";
const CLIENT = { client_id: "dashboard", client_secret: "dashboard-client-secret-for-tests", redirect_uris: [`${DASHBOARD}/api/auth/callback/oidc`] };
const ROLE_MAP = JSON.stringify({ "bi-admins": "admin", "bi-analysts": "analyst", "bi-viewers": "viewer", "routing-team": "routing" });

let dir: string;
let store: Store;
let idp: TestIdp;
let foreign: TestIdp;
const people: IdpUser[] = [];
const person = (username: string, groups: string[], extra: Partial<IdpUser> = {}): IdpUser => ({ sub: `sub-${username}`, username, password: `pw-${username}`, email: `${username}@corp.example`, groups, ...extra });

function setEnv(extra: Record<string, string> = {}): void {
  state.env = parseServerEnv({
    NEXTAUTH_SECRET: SECRET,
    NEXTAUTH_URL: DASHBOARD,
    DASHBOARD_DB: dir,
    UPSTREAM_BASE_URL: "http://127.0.0.1:1",
    UPSTREAM_CLIENT_ID: "x",
    UPSTREAM_CLIENT_SECRET: "x",
    UPSTREAM_ACCESS_TOKEN: "x",
    TRUSTED_PROXY_HOPS: "0",
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: CLIENT.client_id,
    OIDC_CLIENT_SECRET: CLIENT.client_secret,
    OIDC_SCOPES: "openid email profile groups",
    OIDC_PROVIDER_NAME: "Corp IdP",
    OIDC_ROLE_MAP: ROLE_MAP,
    ...extra,
  });
}

const options = authOptionsWith({ ssoSignIn: async (identity, settings, context) => ssoSignIn(store, identity, settings, context) });

/** A browser's cookies for one site. */
class Jar {
  readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  fromNextAuth(cookies: Cookie[] | undefined): void {
    for (const c of cookies ?? []) {
      const gone = c.value === "" || c.options?.maxAge === 0 || (c.options?.expires !== undefined && c.options.expires.getTime() <= Date.now());
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }
  fromResponse(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=/i.test(a) && new Date(a.split("=")[1]!).getTime() <= Date.now()) || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

async function dashboard(jar: Jar, path: string, init: { method?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { cookie: jar.header(), host: "localhost:3000" };
  let body: string | undefined;
  // next-auth's handler reads a web Request's body as JSON.
  if (init.form) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.form);
  }
  const res = await AuthHandler({ req: new Request(`${DASHBOARD}${path}`, { method: init.method ?? "GET", headers, ...(body ? { body } : {}) }), options });
  jar.fromNextAuth(res.cookies);
  return res;
}

/** Follows the IdP's redirects until one leaves it; logs in on its form when asked. */
async function atIdp(jar: Jar, url: string, login: { username: string; password: string } | null): Promise<string> {
  let next = url;
  for (let hops = 0; hops < 10; hops++) {
    if (next.startsWith(DASHBOARD)) return next;
    const res = await fetch(next, { redirect: "manual", headers: { cookie: jar.header() } });
    jar.fromResponse(res);
    if (res.status >= 300 && res.status < 400) {
      next = new URL(res.headers.get("location")!, next).toString();
      continue;
    }
    const html = await res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (!action || !login) throw new Error(`the IdP answered ${res.status}: ${html.slice(0, 300)}`);
    const posted = await fetch(new URL(action, next), {
      method: "POST",
      redirect: "manual",
      headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(login).toString(),
    });
    jar.fromResponse(posted);
    if (posted.status < 300 || posted.status >= 400) throw new Error(`the IdP refused the login: ${posted.status} ${(await posted.text()).slice(0, 200)}`);
    next = new URL(posted.headers.get("location")!, next).toString();
  }
  throw new Error("too many redirects at the IdP");
}

/** Starts a sign-in at the dashboard: the IdP's authorization URL, the dashboard's cookies set for it. */
async function begin(browser: Jar, callbackUrl = "/explore"): Promise<string> {
  const csrf = await dashboard(browser, "/api/auth/csrf");
  const { csrfToken } = csrf.body as { csrfToken: string };
  const started = await dashboard(browser, "/api/auth/signin/oidc", { method: "POST", form: { csrfToken, callbackUrl, json: "true" } });
  const target = started.redirect ?? (started.body as { url?: string } | undefined)?.url;
  if (!target?.startsWith(idp.issuer)) throw new Error(`sign-in did not go to the IdP: ${JSON.stringify(started)}`);
  return target;
}

/** The whole flow for `who`: the dashboard's answer to the IdP's callback. */
async function signInAs(who: IdpUser, jars = { browser: new Jar(), idpJar: new Jar() }, callbackUrl = "/explore") {
  const authorize = await begin(jars.browser, callbackUrl);
  const callback = await atIdp(jars.idpJar, authorize, who);
  const res = await dashboard(jars.browser, callback.slice(DASHBOARD.length));
  return { res, callback, ...jars };
}

/** `fn`'s result and what next-auth logged meanwhile (the check that refused, in openid-client's words). */
async function logged<T>(fn: () => Promise<T>): Promise<{ result: T; log: string }> {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const result = await fn();
    return { result, log: spy.mock.calls.map((c) => String(c[0])).join("\n") };
  } finally {
    spy.mockRestore();
  }
}

async function sessionOf(jar: Jar): Promise<JWT | null> {
  const raw = jar.cookies.get("next-auth.session-token");
  return raw ? decode({ token: raw, secret: SECRET }) : null;
}

/** A password sign-in through next-auth's credentials callback: the browser and its session. */
async function withPassword(email: string, password: string) {
  const browser = new Jar();
  const csrf = await dashboard(browser, "/api/auth/csrf");
  const { csrfToken } = csrf.body as { csrfToken: string };
  const res = await dashboard(browser, "/api/auth/callback/credentials", { method: "POST", form: { csrfToken, email, password, callbackUrl: "/", json: "true" } });
  return { res, browser, token: await sessionOf(browser) };
}

/** next-auth's own answer to the browser asking for its session: the user, or null when there is none. */
async function sessionEndpoint(browser: Jar): Promise<unknown> {
  const res = await dashboard(browser, "/api/auth/session");
  return (res.body as { user?: unknown } | undefined)?.user ?? null;
}

/** The failed sign-ins' tally entry of `address` (reading the log closes the open tallies). */
async function tallyOf(address: string) {
  return (await auditRepo(store).list({ actions: ["sign_in.failed"] }, { limit: 100 })).entries.find((e) => e.actorAddress === address);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboard-sso-flow-"));
  store = await openTestPglite(dir, "sso flow test");
  (globalThis as Record<symbol, unknown>)[Symbol.for("payments-analytics.dashboard-store")] = Promise.resolve(store);
  idp = await startTestIdp({ users: () => people, clients: [CLIENT] });
  // Another, real, provider with the same client registered: its codes and its issuer are foreign to the dashboard.
  foreign = await startTestIdp({ users: () => people, clients: [CLIENT] });
  people.push(
    person("ada", ["bi-analysts"]),
    person("bob", ["bi-admins", "bi-viewers"]),
    person("cyd", ["marketing"]),
    person("dan", ["bi-viewers"]),
    person("eve", ["bi-analysts"]),
  );
  setEnv();
});

afterAll(async () => {
  await idp?.close();
  await foreign?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  setEnv();
  state.headers = null;
});

describe("company sign-in through a real OpenID Connect provider", () => {
  it("signs a person in with the mapped role, creates their account once, and returns them to a page of the dashboard", async () => {
    const { res, callback, browser } = await signInAs(people[0]!);
    expect(new URL(callback).searchParams.get("iss")).toBe(idp.issuer);
    expect(res.redirect).toBe(`${DASHBOARD}/explore`);
    const token = await sessionOf(browser);
    expect(token).toMatchObject({ email: "ada@corp.example", role: "analyst", method: "sso" });
    const account = await usersRepo(store).findByEmail("ada@corp.example");
    expect(account).toMatchObject({ role: "analyst", routing: false, passwordSetBy: null });
    expect(token!.sub).toBe(account!.id);
    expect(await currentSessionUser(token!)).toEqual({ id: account!.id, email: "ada@corp.example", role: "analyst" });

    const again = await signInAs(people[0]!);
    expect((await sessionOf(again.browser))!.sub).toBe(account!.id);
    const created = (await auditRepo(store).list({ actions: ["user.created"] }, { limit: 50 })).entries.filter((e) => e.subjectLabel === "ada@corp.example");
    expect(created).toHaveLength(1);
    expect(created[0]!.detail).toMatchObject({ method: "sso", role: "analyst" });
  });

  it("takes the highest mapped role of several groups", async () => {
    const { browser } = await signInAs(people[1]!);
    expect(await sessionOf(browser)).toMatchObject({ email: "bob@corp.example", role: "admin" });
  });

  it("sends the browser home, never elsewhere, for a callbackUrl off the dashboard", async () => {
    const { res } = await signInAs(people[0]!, undefined, "https://evil.example/steal");
    expect(res.redirect).toBe(`${DASHBOARD}/`);
  });

  it("refuses a person in no mapped group with the refusal page and makes no account", async () => {
    const { res, browser } = await signInAs(people[2]!);
    expect(res.redirect).toBe(`${DASHBOARD}/login/refused?reason=no_group`);
    expect(await sessionOf(browser)).toBeNull();
    expect(await usersRepo(store).findByEmail("cyd@corp.example")).toBeNull();
  });

  it("changes the role when the groups change, and refuses and ends the sessions of someone removed from every group", async () => {
    const dan = people[3]!;
    const first = await signInAs(dan);
    const before = await sessionOf(first.browser);
    expect(before).toMatchObject({ role: "viewer" });

    dan.groups = ["bi-analysts", "routing-team"];
    // The IdP remembers the person (its own session): no login form the second time.
    const second = await signInAs(dan, { browser: new Jar(), idpJar: first.idpJar });
    expect(await sessionOf(second.browser)).toMatchObject({ role: "analyst" });
    expect(await usersRepo(store).findByEmail(dan.email)).toMatchObject({ role: "analyst", routing: true });
    // The first session sees the new role on its next use: roles are read from the store on every request.
    expect(await currentSessionUser(before!)).toMatchObject({ role: "analyst" });

    dan.groups = [];
    const third = await signInAs(dan, { browser: new Jar(), idpJar: first.idpJar });
    expect(third.res.redirect).toBe(`${DASHBOARD}/login/refused?reason=no_group`);
    expect(await currentSessionUser(before!)).toBeNull();
    expect(await currentSessionUser((await sessionOf(second.browser))!)).toBeNull();
  });

  it("bounds an SSO session by OIDC_SESSION_MAX_AGE_SECONDS, and a password session by 12 hours", async () => {
    setEnv({ OIDC_SESSION_MAX_AGE_SECONDS: "600" });
    const { browser } = await signInAs(people[4]!);
    const token = (await sessionOf(browser))!;
    const at = token.signedInAt!;
    expect(await currentSessionUser(token)).not.toBeNull();
    expect(await currentSessionUser(token, at + 600_000)).not.toBeNull();
    expect(await currentSessionUser(token, at + 600_001)).toBeNull();

    await usersRepo(store).create({ email: "lou@corp.example", role: "analyst", passwordHash: await hashPassword("lou-s-long-password") });
    const lou = (await withPassword("lou@corp.example", "lou-s-long-password")).token!;
    expect(lou).toMatchObject({ method: "password" });
    const louAt = lou.signedInAt!;
    expect(await currentSessionUser(lou, louAt + 600_001)).not.toBeNull();
    expect(await currentSessionUser(lou, louAt + 12 * 3600_000)).not.toBeNull();
    expect(await currentSessionUser(lou, louAt + 12 * 3600_000 + 1)).toBeNull();
  });

  it("writes the client's address (TRUSTED_PROXY_HOPS) into the audit log, and counts refusals, the callback's own too, in its tally", async () => {
    setEnv({ TRUSTED_PROXY_HOPS: "1" });
    state.headers = new Headers({ "x-forwarded-for": "203.0.113.99, 198.51.100.23" });
    await signInAs(people[0]!);
    const succeeded = (await auditRepo(store).list({ actions: ["sign_in.succeeded"] }, { limit: 1 })).entries[0];
    expect(succeeded).toMatchObject({ actorEmail: "ada@corp.example", actorAddress: "198.51.100.23" });

    const cyd = people[2]!;
    for (let i = 0; i < 3; i++) expect((await signInAs(cyd)).res.redirect).toBe(`${DASHBOARD}/login/refused?reason=no_group`);
    // The signIn callback's own refusal (an issuer that is not the configured one) is counted as well.
    const signIn = options.callbacks!.signIn!;
    const foreignProfile = { iss: foreign.issuer, sub: cyd.sub, email: cyd.email };
    expect(await signIn({ user: { id: cyd.sub, email: cyd.email, role: "viewer" }, account: { provider: "oidc", type: "oauth", providerAccountId: cyd.sub }, profile: foreignProfile })).toBe(false);
    expect(await signIn({ user: { id: cyd.sub, email: cyd.email, role: "viewer" }, account: { provider: "oidc", type: "oauth", providerAccountId: cyd.sub } })).toBe(false);
    const tally = await tallyOf("198.51.100.23");
    expect(tally).toMatchObject({ actorKind: "anonymous", actorEmail: "cyd@corp.example", detail: { failures: 5, sso_no_group: 3, sso_callback: 2, emails: ["cyd@corp.example"] } });
  });

  it("refuses a callback whose state is not the one this browser was given", async () => {
    const browser = new Jar();
    const authorize = await begin(browser);
    const callback = new URL(await atIdp(new Jar(), authorize, people[0]!));
    callback.searchParams.set("state", "forged-state-value");
    const { result: res, log } = await logged(() => dashboard(browser, `${callback.pathname}${callback.search}`));
    expect(res.redirect).toBe(REFUSED);
    expect(log).toMatch(/state mismatch/);
    expect(await sessionOf(browser)).toBeNull();
  });

  it("refuses a callback from another browser (no state, PKCE or nonce cookies of its own)", async () => {
    const authorize = await begin(new Jar());
    const callback = await atIdp(new Jar(), authorize, people[0]!);
    const attacker = new Jar();
    const { result: res, log } = await logged(() => dashboard(attacker, callback.slice(DASHBOARD.length)));
    expect(res.redirect).toBe(REFUSED);
    expect(log).toMatch(/state cookie was missing/i);
    expect(await sessionOf(attacker)).toBeNull();
  });

  it("refuses a replayed code, even with the original browser's state, PKCE and nonce cookies", async () => {
    const browser = new Jar();
    const authorize = await begin(browser);
    const checks = new Map(browser.cookies);
    const callback = await atIdp(new Jar(), authorize, people[0]!);
    const first = await dashboard(browser, callback.slice(DASHBOARD.length));
    expect(first.redirect).toBe(`${DASHBOARD}/explore`);

    const replay = new Jar();
    for (const [k, v] of checks) replay.cookies.set(k, v);
    const { result: res, log } = await logged(() => dashboard(replay, callback.slice(DASHBOARD.length)));
    expect(res.redirect).toBe(REFUSED);
    expect(log).toMatch(/invalid_grant/);
    expect(await sessionOf(replay)).toBeNull();
  });

  it("refuses a foreign issuer: its name in the answer, or its code", async () => {
    const browser = new Jar();
    const authorize = await begin(browser);
    const callback = new URL(await atIdp(new Jar(), authorize, people[0]!));
    callback.searchParams.set("iss", foreign.issuer);
    const renamed = await logged(() => dashboard(browser, `${callback.pathname}${callback.search}`));
    expect(renamed.result.redirect).toBe(REFUSED);
    expect(renamed.log).toMatch(/iss mismatch/);
    expect(await sessionOf(browser)).toBeNull();

    // The same request, sent to the foreign provider: its code and its issuer, this browser's state.
    const browser2 = new Jar();
    const ours = new URL(await begin(browser2));
    const theirs = new URL(`${foreign.issuer}${ours.pathname}${ours.search}`);
    const fromForeign = await atIdp(new Jar(), theirs.toString(), people[0]!);
    expect(new URL(fromForeign).searchParams.get("iss")).toBe(foreign.issuer);
    const checks = new Map(browser2.cookies);
    const asIs = await logged(() => dashboard(browser2, fromForeign.slice(DASHBOARD.length)));
    expect(asIs.result.redirect).toBe(REFUSED);
    expect(asIs.log).toMatch(/iss mismatch/);
    expect(await sessionOf(browser2)).toBeNull();

    // Without an issuer's name the answer is refused (the provider announces that it names itself);
    // under our provider's name the foreign code still is: our provider never issued it.
    const cases = [
      { iss: null, why: /iss missing/ },
      { iss: idp.issuer, why: /invalid_grant/ },
    ];
    for (const c of cases) {
      const forged = new URL(fromForeign);
      if (c.iss === null) forged.searchParams.delete("iss");
      else forged.searchParams.set("iss", c.iss);
      const jar = new Jar();
      for (const [k, v] of checks) jar.cookies.set(k, v);
      const answer = await logged(() => dashboard(jar, `${forged.pathname}${forged.search}`));
      expect(answer.result.redirect).toBe(REFUSED);
      expect(answer.log).toMatch(c.why);
      expect(await sessionOf(jar)).toBeNull();
    }
  });
});

describe("SSO only", () => {
  const BREAK_GLASS = "root@corp.example";
  const PASSWORD = "a-long-break-glass-passw0rd";

  beforeAll(async () => {
    const hash = await hashPassword(PASSWORD);
    await usersRepo(store).create({ email: BREAK_GLASS, role: "admin", passwordHash: hash });
    await usersRepo(store).create({ email: "pat@corp.example", role: "analyst", passwordHash: hash });
  });

  it("refuses a right password except for a break-glass account, and counts the refusal in the audit log", async () => {
    setEnv({ OIDC_SSO_ONLY: "true", OIDC_BREAK_GLASS: BREAK_GLASS });
    const refused = await withPassword("pat@corp.example", PASSWORD);
    expect(refused.token).toBeNull();
    expect(refused.res.redirect ?? "").toMatch(/error=CredentialsSignin/);
    const allowed = await withPassword(BREAK_GLASS, PASSWORD);
    expect(allowed.token).toMatchObject({ email: BREAK_GLASS, role: "admin", method: "password" });

    const failed = (await auditRepo(store).list({ actions: ["sign_in.failed"] }, { limit: 50 })).entries;
    expect(failed.some((e) => e.detail.sso_only === 1 && (e.detail.emails as string[]).includes("pat@corp.example"))).toBe(true);
    // Without the setting the same password works again.
    setEnv();
    expect((await withPassword("pat@corp.example", PASSWORD)).token).toMatchObject({ email: "pat@corp.example", method: "password" });
  });

  it("ends password sessions made before it was turned on, and a break-glass account's once its e-mail is taken off OIDC_BREAK_GLASS", async () => {
    setEnv({ OIDC_BREAK_GLASS: BREAK_GLASS });
    const pat = await withPassword("pat@corp.example", PASSWORD);
    const root = await withPassword(BREAK_GLASS, PASSWORD);
    const sso = await signInAs(people[1]!);
    expect(await currentSessionUser(pat.token!)).toMatchObject({ email: "pat@corp.example" });
    expect(await sessionEndpoint(pat.browser)).toMatchObject({ email: "pat@corp.example" });

    setEnv({ OIDC_SSO_ONLY: "true", OIDC_BREAK_GLASS: BREAK_GLASS });
    expect(await currentSessionUser(pat.token!)).toBeNull();
    expect(await sessionEndpoint(pat.browser)).toBeNull();
    expect(await currentSessionUser(root.token!)).toMatchObject({ email: BREAK_GLASS, role: "admin" });
    expect(await currentSessionUser((await sessionOf(sso.browser))!)).toMatchObject({ email: "bob@corp.example" });

    setEnv({ OIDC_SSO_ONLY: "true", OIDC_BREAK_GLASS: "someone-else@corp.example" });
    expect(await currentSessionUser(root.token!)).toBeNull();
    expect(await sessionEndpoint(root.browser)).toBeNull();
    expect(await currentSessionUser((await sessionOf(sso.browser))!)).toMatchObject({ email: "bob@corp.example" });
  });

  it("still signs people in through the provider", async () => {
    setEnv({ OIDC_SSO_ONLY: "true", OIDC_BREAK_GLASS: BREAK_GLASS });
    const { browser } = await signInAs(people[1]!);
    expect(await sessionOf(browser)).toMatchObject({ email: "bob@corp.example", role: "admin", method: "sso" });
  });
});

describe("a password account linked to an identity", () => {
  const PASSWORD = "kim-s-long-password";
  const kim = person("kim", ["bi-analysts"]);

  beforeAll(async () => {
    await usersRepo(store).create({ email: kim.email, role: "viewer", passwordHash: await hashPassword(PASSWORD) });
    people.push(kim);
  });

  it("signs in only through the IdP once linked: its password session ends and its password is refused, unless it is break-glass", async () => {
    const before = await withPassword(kim.email, PASSWORD);
    expect(before.token).toMatchObject({ email: kim.email, method: "password" });

    setEnv({ OIDC_LINK_BY_EMAIL: "true" });
    const linked = await signInAs(kim);
    expect(await sessionOf(linked.browser)).toMatchObject({ email: kim.email, role: "analyst", method: "sso" });
    expect(await currentSessionUser(before.token!)).toBeNull();
    expect(await sessionEndpoint(before.browser)).toBeNull();
    const refused = await withPassword(kim.email, PASSWORD);
    expect(refused.token).toBeNull();
    expect(refused.res.redirect ?? "").toMatch(/error=CredentialsSignin/);

    setEnv({ OIDC_BREAK_GLASS: kim.email });
    const glass = await withPassword(kim.email, PASSWORD);
    expect(glass.token).toMatchObject({ email: kim.email, method: "password" });
    expect(glass.token!.sub).toBe((await sessionOf(linked.browser))!.sub);
  });
});
