import { describe, expect, it } from "vitest";
import { EnvError, parsePasswordSettings, parseServerEnv, parseStoreEnv } from "./env-schema";

const valid = {
  NEXTAUTH_SECRET: "x".repeat(32),
  UPSTREAM_BASE_URL: "http://127.0.0.1:4000",
  UPSTREAM_CLIENT_ID: "client",
  UPSTREAM_CLIENT_SECRET: "secret-value",
  UPSTREAM_TOKEN_URL: "http://127.0.0.1:4000/api/auth/token",
};

function errorOf(env: Record<string, string | undefined>): EnvError {
  try {
    parseServerEnv(env);
  } catch (e) {
    if (e instanceof EnvError) return e;
    throw e;
  }
  throw new Error("expected an EnvError");
}

describe("parseServerEnv", () => {
  it("fills the documented defaults", () => {
    const env = parseServerEnv(valid);
    expect(env).toMatchObject({
      NEXTAUTH_URL: "http://localhost:3000",
      DASHBOARD_DB: "data/dashboard",
      UPSTREAM_REPORT_RATE_LIMIT: 5,
      UPSTREAM_RATE_WINDOW_SECONDS: 60,
      UPSTREAM_PAGE_CAP: 50,
      TRUSTED_PROXY_HOPS: 1,
      REPORT_JOBS_PER_USER: 20,
      REPORT_JOBS_MAX: 200,
      CACHE_MAX_MB: 256,
      DAY_STORE_MAX_MB: 1024,
      CACHE_TTL_PAST_SECONDS: 86_400,
      CACHE_TTL_TODAY_SECONDS: 300,
      REPORT_TIMEZONE: "UTC",
      SHARE_WARM_DAYS: 7,
      SHARE_WARM_INTERVAL_SECONDS: 30,
      SCHEDULER_TICK_SECONDS: 30,
    });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.UPSTREAM_ACCESS_TOKEN).toBeUndefined();
    expect(env.MONITOR_CONFIG).toBeUndefined();
  });

  it("takes MONITOR_CONFIG as a path, and an empty one as unset", () => {
    expect(parseServerEnv({ ...valid, MONITOR_CONFIG: "/etc/dashboard/monitor.json" }).MONITOR_CONFIG).toBe("/etc/dashboard/monitor.json");
    expect(parseServerEnv({ ...valid, MONITOR_CONFIG: " config/monitor.json " }).MONITOR_CONFIG).toBe("config/monitor.json");
    expect(parseServerEnv({ ...valid, MONITOR_CONFIG: "" }).MONITOR_CONFIG).toBeUndefined();
    expect(parseServerEnv({ ...valid, MONITOR_CONFIG: "   " }).MONITOR_CONFIG).toBeUndefined();
  });

  it("coerces numbers and accepts a fixed token instead of a token URL", () => {
    const env = parseServerEnv({
      ...valid,
      UPSTREAM_TOKEN_URL: undefined,
      UPSTREAM_ACCESS_TOKEN: "tok",
      UPSTREAM_PAGE_CAP: "7",
      REPORT_TIMEZONE: "Europe/Berlin",
      DATABASE_URL: "postgres://u:p@localhost:5432/dash",
    });
    expect(env.UPSTREAM_PAGE_CAP).toBe(7);
    expect(parseServerEnv({ ...valid, SCHEDULER_TICK_SECONDS: "5" }).SCHEDULER_TICK_SECONDS).toBe(5);
    expect(env.UPSTREAM_ACCESS_TOKEN).toBe("tok");
    expect(env.REPORT_TIMEZONE).toBe("Europe/Berlin");
  });

  it("names every missing variable", () => {
    const e = errorOf({});
    expect(e.variables).toEqual(expect.arrayContaining(["NEXTAUTH_SECRET", "UPSTREAM_BASE_URL", "UPSTREAM_CLIENT_ID", "UPSTREAM_CLIENT_SECRET"]));
    expect(e.message).toContain("NEXTAUTH_SECRET");
    expect(e.message).toContain("UPSTREAM_CLIENT_SECRET");
  });

  it.each([
    ["NEXTAUTH_SECRET", { NEXTAUTH_SECRET: "short" }],
    ["UPSTREAM_BASE_URL", { UPSTREAM_BASE_URL: "not a url" }],
    ["UPSTREAM_TOKEN_URL", { UPSTREAM_TOKEN_URL: "ftp://x/y" }],
    ["DATABASE_URL", { DATABASE_URL: "mysql://localhost/db" }],
    ["UPSTREAM_REPORT_RATE_LIMIT", { UPSTREAM_REPORT_RATE_LIMIT: "five" }],
    ["UPSTREAM_PAGE_CAP", { UPSTREAM_PAGE_CAP: "0" }],
    ["TRUSTED_PROXY_HOPS", { TRUSTED_PROXY_HOPS: "-1" }],
    ["TRUSTED_PROXY_HOPS", { TRUSTED_PROXY_HOPS: "11" }],
    ["CACHE_TTL_TODAY_SECONDS", { CACHE_TTL_TODAY_SECONDS: "1.5" }],
    ["REPORT_TIMEZONE", { REPORT_TIMEZONE: "Mars/Olympus_Mons" }],
    ["NEXTAUTH_URL", { NEXTAUTH_URL: "localhost:3000" }],
    ["SCHEDULER_TICK_SECONDS", { SCHEDULER_TICK_SECONDS: "7" }],
    ["SCHEDULER_TICK_SECONDS", { SCHEDULER_TICK_SECONDS: "0" }],
    ["SCHEDULER_TICK_SECONDS", { SCHEDULER_TICK_SECONDS: "2.5" }],
    ["SCHEDULER_TICK_SECONDS", { SCHEDULER_TICK_SECONDS: "120" }],
  ])("names %s when it is invalid", (name, patch) => {
    const e = errorOf({ ...valid, ...patch });
    expect(e.variables).toEqual([name]);
    expect(e.message).toContain(name);
  });

  it("requires exactly one of UPSTREAM_ACCESS_TOKEN and UPSTREAM_TOKEN_URL", () => {
    expect(errorOf({ ...valid, UPSTREAM_ACCESS_TOKEN: "tok" }).message).toMatch(/UPSTREAM_ACCESS_TOKEN.*UPSTREAM_TOKEN_URL.*both/);
    expect(errorOf({ ...valid, UPSTREAM_TOKEN_URL: undefined }).message).toMatch(/neither/);
  });

  it("treats empty strings as unset and never echoes values", () => {
    const e = errorOf({ ...valid, UPSTREAM_CLIENT_SECRET: "", NEXTAUTH_SECRET: "hunter2-is-not-long-enough" });
    expect(e.variables.sort()).toEqual(["NEXTAUTH_SECRET", "UPSTREAM_CLIENT_SECRET"]);
    expect(e.message).not.toContain("hunter2");
  });
});

describe("mail settings", () => {
  const mail = { SMTP_HOST: "smtp.example.com", MAIL_FROM: "alerts@example.com" };

  it("leaves mail off by default, with the documented port and TLS mode", () => {
    const env = parseServerEnv(valid);
    expect(env.SMTP_HOST).toBeUndefined();
    expect(env.MAIL_FROM).toBeUndefined();
    expect(env.SMTP_USER).toBeUndefined();
    expect(env.SMTP_PASSWORD).toBeUndefined();
    expect(env).toMatchObject({ SMTP_PORT: 587, SMTP_TLS: "starttls" });
  });

  it("takes a host, port, TLS mode, credentials and a sender with a name", () => {
    const env = parseServerEnv({
      ...valid,
      ...mail,
      SMTP_PORT: "465",
      SMTP_TLS: "tls",
      SMTP_USER: "mailer",
      SMTP_PASSWORD: "s3cret pass",
      MAIL_FROM: "Payments alerts <alerts@example.com>",
    });
    expect(env).toMatchObject({ SMTP_HOST: "smtp.example.com", SMTP_PORT: 465, SMTP_TLS: "tls", SMTP_USER: "mailer", SMTP_PASSWORD: "s3cret pass" });
    expect(env.MAIL_FROM).toBe("Payments alerts <alerts@example.com>");
    expect(parseServerEnv({ ...valid, ...mail, SMTP_TLS: "none", SMTP_HOST: "127.0.0.1" }).SMTP_TLS).toBe("none");
  });

  it("treats an empty SMTP_HOST as mail off", () => {
    expect(parseServerEnv({ ...valid, SMTP_HOST: "", MAIL_FROM: "" }).SMTP_HOST).toBeUndefined();
  });

  it.each([
    ["SMTP_PORT", { SMTP_PORT: "0" }],
    ["SMTP_PORT", { SMTP_PORT: "65536" }],
    ["SMTP_PORT", { SMTP_PORT: "25.5" }],
    ["SMTP_PORT", { SMTP_PORT: "smtp" }],
    ["SMTP_TLS", { SMTP_TLS: "ssl" }],
    ["SMTP_HOST", { SMTP_HOST: "smtp://smtp.example.com" }],
    ["MAIL_FROM", { MAIL_FROM: "alerts" }],
    ["MAIL_FROM", { MAIL_FROM: "Alerts <not an address>" }],
    ["MAIL_FROM", { MAIL_FROM: "alerts@example.com\nBcc: x@evil.test" }],
  ])("names %s when it is invalid", (name, patch) => {
    const e = errorOf({ ...valid, ...mail, ...patch });
    expect(e.variables).toEqual([name]);
    expect(e.message).toContain(name);
  });

  it("requires MAIL_FROM with SMTP_HOST", () => {
    const e = errorOf({ ...valid, SMTP_HOST: "smtp.example.com" });
    expect(e.variables).toEqual(["MAIL_FROM"]);
    expect(e.message).toMatch(/MAIL_FROM is required when SMTP_HOST is set/);
  });

  it("requires SMTP_USER and SMTP_PASSWORD together, and never echoes the password", () => {
    const withoutUser = errorOf({ ...valid, ...mail, SMTP_PASSWORD: "hunter2-password" });
    expect(withoutUser.variables).toEqual(["SMTP_USER"]);
    expect(withoutUser.message).not.toContain("hunter2");
    expect(errorOf({ ...valid, ...mail, SMTP_USER: "mailer" }).variables).toEqual(["SMTP_PASSWORD"]);
  });
});

describe("automation and mail limits", () => {
  it("has the documented defaults: the users' own domains only, and the caps of docs/security.md", () => {
    expect(parseServerEnv(valid)).toMatchObject({
      MAIL_ALLOWED_DOMAINS: [],
      MAIL_MAX_RECIPIENTS: 10,
      ALERT_RULES_PER_USER: 20,
      SUBSCRIPTIONS_PER_USER: 10,
      ALERT_MIN_COOLDOWN_MINUTES: 60,
      RUN_NOW_PER_USER: 5,
      MAIL_PER_USER_PER_DAY: 200,
    });
  });

  it("takes allowed domains as a comma-separated list, lower-cased, and refuses what is not a domain", () => {
    expect(parseServerEnv({ ...valid, MAIL_ALLOWED_DOMAINS: " Partner.Example, bank.example ,," }).MAIL_ALLOWED_DOMAINS).toEqual(["partner.example", "bank.example"]);
    for (const bad of ["*.example", "bank.example;evil.example", "user@bank.example", "localhost"]) {
      expect(errorOf({ ...valid, MAIL_ALLOWED_DOMAINS: bad }).variables, bad).toEqual(["MAIL_ALLOWED_DOMAINS"]);
    }
  });

  it("keeps a cool-down minimum of at least 15 minutes and each cap above 0", () => {
    expect(errorOf({ ...valid, ALERT_MIN_COOLDOWN_MINUTES: "0" }).variables).toEqual(["ALERT_MIN_COOLDOWN_MINUTES"]);
    expect(parseServerEnv({ ...valid, ALERT_MIN_COOLDOWN_MINUTES: "15" }).ALERT_MIN_COOLDOWN_MINUTES).toBe(15);
    for (const name of ["MAIL_MAX_RECIPIENTS", "ALERT_RULES_PER_USER", "SUBSCRIPTIONS_PER_USER", "RUN_NOW_PER_USER", "MAIL_PER_USER_PER_DAY"]) {
      expect(errorOf({ ...valid, [name]: "0" }).variables, name).toEqual([name]);
    }
  });
});

describe("audit retention", () => {
  it("keeps 400 days by default, at least 30 and at most 3650", () => {
    expect(parseServerEnv(valid).AUDIT_RETENTION_DAYS).toBe(400);
    expect(parseServerEnv({ ...valid, AUDIT_RETENTION_DAYS: "30" }).AUDIT_RETENTION_DAYS).toBe(30);
    for (const bad of ["29", "3651", "0", "a year"]) expect(errorOf({ ...valid, AUDIT_RETENTION_DAYS: bad }).variables, bad).toEqual(["AUDIT_RETENTION_DAYS"]);
  });
});

describe("the routing two-person rule", () => {
  it("is off by default, on with true, and refuses anything but true or false by name", () => {
    expect(parseServerEnv(valid).ROUTING_TWO_PERSON).toBe(false);
    expect(parseServerEnv({ ...valid, ROUTING_TWO_PERSON: "true" }).ROUTING_TWO_PERSON).toBe(true);
    expect(parseServerEnv({ ...valid, ROUTING_TWO_PERSON: "false" }).ROUTING_TWO_PERSON).toBe(false);
    for (const bad of ["yes", "1", "TRUE"]) {
      const e = errorOf({ ...valid, ROUTING_TWO_PERSON: bad });
      expect(e.variables, bad).toEqual(["ROUTING_TWO_PERSON"]);
      expect(e.message).toContain("ROUTING_TWO_PERSON must be true or false");
    }
  });
});

describe("each user's share of the routing bucket", () => {
  it("is 200 calls by default, 1 to 10,000, and refuses anything else by name", () => {
    expect(parseServerEnv(valid).ROUTING_CALLS_PER_USER).toBe(200);
    expect(parseServerEnv({ ...valid, ROUTING_CALLS_PER_USER: "50" }).ROUTING_CALLS_PER_USER).toBe(50);
    for (const bad of ["0", "10001", "many"]) expect(errorOf({ ...valid, ROUTING_CALLS_PER_USER: bad }).variables, bad).toEqual(["ROUTING_CALLS_PER_USER"]);
  });
});

describe("parseStoreEnv", () => {
  it("needs no upstream configuration", () => {
    expect(parseStoreEnv({})).toEqual({ DASHBOARD_DB: "data/dashboard" });
    expect(() => parseStoreEnv({ DATABASE_URL: "http://x" })).toThrow(/DATABASE_URL/);
  });
});

describe("the routing credential", () => {
  it("is optional, taken as a pair, and fetches its tokens from the token URL", () => {
    const none = parseServerEnv(valid);
    expect(none.UPSTREAM_ROUTING_CLIENT_ID).toBeUndefined();
    expect(none.UPSTREAM_ROUTING_CLIENT_SECRET).toBeUndefined();
    const both = parseServerEnv({ ...valid, UPSTREAM_ROUTING_CLIENT_ID: "router", UPSTREAM_ROUTING_CLIENT_SECRET: "router-secret" });
    expect(both).toMatchObject({ UPSTREAM_ROUTING_CLIENT_ID: "router", UPSTREAM_ROUTING_CLIENT_SECRET: "router-secret" });
    expect(errorOf({ ...valid, UPSTREAM_ROUTING_CLIENT_ID: "router" }).variables).toEqual(["UPSTREAM_ROUTING_CLIENT_SECRET"]);
    const secretOnly = errorOf({ ...valid, UPSTREAM_ROUTING_CLIENT_SECRET: "router-secret" });
    expect(secretOnly.variables).toEqual(["UPSTREAM_ROUTING_CLIENT_ID"]);
    expect(secretOnly.message).not.toContain("router-secret");
    const fixedToken = { ...valid, UPSTREAM_TOKEN_URL: undefined, UPSTREAM_ACCESS_TOKEN: "tok" };
    expect(errorOf({ ...fixedToken, UPSTREAM_ROUTING_CLIENT_ID: "router", UPSTREAM_ROUTING_CLIENT_SECRET: "s" }).variables).toEqual(["UPSTREAM_TOKEN_URL"]);
  });
});

describe("the separate worker", () => {
  it("is off by default, on with true on PostgreSQL, and refused without DATABASE_URL by name", () => {
    expect(parseServerEnv(valid).SEPARATE_WORKER).toBe(false);
    const pg = { ...valid, DATABASE_URL: "postgres://u:p@127.0.0.1:5432/dashboard" };
    expect(parseServerEnv({ ...pg, SEPARATE_WORKER: "true" }).SEPARATE_WORKER).toBe(true);
    expect(parseServerEnv({ ...pg, SEPARATE_WORKER: "false" }).SEPARATE_WORKER).toBe(false);
    const embedded = errorOf({ ...valid, SEPARATE_WORKER: "true" });
    expect(embedded.variables).toEqual(["SEPARATE_WORKER"]);
    expect(embedded.message).toContain("SEPARATE_WORKER=true needs DATABASE_URL");
    expect(errorOf({ ...pg, SEPARATE_WORKER: "yes" }).message).toContain("SEPARATE_WORKER must be true or false");
  });
});

describe("parsePasswordSettings (npm run users)", () => {
  it("reads the password rule's variables alone, as the dashboard does, and refuses what the dashboard refuses", () => {
    expect(parsePasswordSettings({})).toBeNull();
    expect(parsePasswordSettings({ OIDC_SSO_ONLY: "true" })).toBeNull();
    expect(parsePasswordSettings({ OIDC_ISSUER: "https://id.corp.example", OIDC_SSO_ONLY: "true", OIDC_BREAK_GLASS: " Root@Corp.example ,ops@corp.example" })).toEqual({
      ssoOnly: true,
      breakGlass: ["root@corp.example", "ops@corp.example"],
    });
    expect(parsePasswordSettings({ OIDC_ISSUER: "https://id.corp.example" })).toEqual({ ssoOnly: false, breakGlass: [] });
    expect(() => parsePasswordSettings({ OIDC_ISSUER: "https://id.corp.example", OIDC_BREAK_GLASS: "root" })).toThrow(EnvError);
  });
});
