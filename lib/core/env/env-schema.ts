/**
 * The dashboard's server environment as a zod schema, kept free of `server-only` so that tests and
 * the command-line tools can parse it too. The server reads it through `lib/core/env/env.ts`.
 *
 * Error messages name the variable and the rule, never the value: values can be secrets.
 */
import { z } from "zod";
import { intInRange, parseEnv, positiveInt } from "@/lib/contract/env";
import { defaultChromiumPath } from "@/lib/core/pdf/chromium";
import { parseRoleMap, type RoleMap, type SsoSettings } from "./sso";

export { EnvError } from "@/lib/contract/env";

const SCHEDULER_TICK_ERROR = "SCHEDULER_TICK_SECONDS must be a whole number of seconds that divides 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60)";

const httpUrl = (name: string) =>
  z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` });


export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const MAIL_DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const MAIL_ADDRESS = /^[^\s@<>()",;:\\]+@[^\s@<>()",;:\\]+$/;

/** `alerts@example.com` or `Payments alerts <alerts@example.com>`, on one line. */
export function isMailFrom(value: string): boolean {
  if (/[\r\n]/.test(value)) return false;
  if (MAIL_ADDRESS.test(value)) return true;
  const named = /^([^<>]*)<([^<>]+)>$/.exec(value);
  return named !== null && MAIL_ADDRESS.test(named[2]!.trim());
}

/** The dashboard store's two variables, also used on their own by `npm run users`. */
export const storeEnvShape = {
  DASHBOARD_DB: z.string().min(1).default("data/dashboard"),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: "DATABASE_URL must be a postgres:// or postgresql:// URL" })
    .optional(),
};

/** What decides whether a password still signs an account in, also read on its own by `npm run users`. */
const passwordEnvShape = {
  OIDC_ISSUER: httpUrl("OIDC_ISSUER").optional(),
  OIDC_SSO_ONLY: z
    .enum(["true", "false"], { error: "OIDC_SSO_ONLY must be true or false" })
    .default("false")
    .transform((v) => v === "true"),
  /** E-mails that may still sign in with a password when OIDC_SSO_ONLY is true, comma-separated. */
  OIDC_BREAK_GLASS: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((e) => e.trim().toLowerCase()).filter((e) => e !== ""))
    .refine((es) => es.every((e) => MAIL_ADDRESS.test(e)), { error: "OIDC_BREAK_GLASS must be e-mail addresses separated by commas" }),
};

const serverEnvSchema = z
  .object({
    NEXTAUTH_SECRET: z
      .string({ error: "NEXTAUTH_SECRET is required (at least 32 random characters, e.g. `openssl rand -base64 32`)" })
      .min(32, { error: "NEXTAUTH_SECRET must be at least 32 characters" }),
    NEXTAUTH_URL: httpUrl("NEXTAUTH_URL").default("http://localhost:3000"),
    ...storeEnvShape,
    UPSTREAM_BASE_URL: httpUrl("UPSTREAM_BASE_URL"),
    UPSTREAM_CLIENT_ID: z.string({ error: "UPSTREAM_CLIENT_ID is required" }).min(1, { error: "UPSTREAM_CLIENT_ID is required" }),
    UPSTREAM_CLIENT_SECRET: z
      .string({ error: "UPSTREAM_CLIENT_SECRET is required" })
      .min(1, { error: "UPSTREAM_CLIENT_SECRET is required" }),
    UPSTREAM_ACCESS_TOKEN: z.string().min(1).optional(),
    UPSTREAM_TOKEN_URL: httpUrl("UPSTREAM_TOKEN_URL").optional(),
    // The routing workspace's separate credential for changing the live routing configuration (a
    // client created with --scope routing-admin). Unset: the workspace reads but cannot apply.
    UPSTREAM_ROUTING_CLIENT_ID: z.string().min(1, { error: "UPSTREAM_ROUTING_CLIENT_ID must not be empty when set" }).optional(),
    UPSTREAM_ROUTING_CLIENT_SECRET: z.string().min(1, { error: "UPSTREAM_ROUTING_CLIENT_SECRET must not be empty when set" }).optional(),
    UPSTREAM_REPORT_RATE_LIMIT: positiveInt("UPSTREAM_REPORT_RATE_LIMIT", 5),
    UPSTREAM_RATE_WINDOW_SECONDS: positiveInt("UPSTREAM_RATE_WINDOW_SECONDS", 60),
    UPSTREAM_PAGE_CAP: positiveInt("UPSTREAM_PAGE_CAP", 50),
    // 0: no proxy in front (the dashboard is reached directly), so no forwarded header is trusted.
    TRUSTED_PROXY_HOPS: intInRange("TRUSTED_PROXY_HOPS", 0, 10, 1),
    REPORT_JOBS_PER_USER: positiveInt("REPORT_JOBS_PER_USER", 20),
    REPORT_JOBS_MAX: positiveInt("REPORT_JOBS_MAX", 200),
    CACHE_MAX_MB: positiveInt("CACHE_MAX_MB", 256),
    /** The day store's bound (the records' JSON size), least recently used days out first past it. */
    DAY_STORE_MAX_MB: positiveInt("DAY_STORE_MAX_MB", 1024),
    CACHE_TTL_PAST_SECONDS: positiveInt("CACHE_TTL_PAST_SECONDS", 86_400),
    CACHE_TTL_TODAY_SECONDS: positiveInt("CACHE_TTL_TODAY_SECONDS", 300),
    REPORT_TIMEZONE: z
      .string()
      .default("UTC")
      .refine(isTimeZone, { error: "REPORT_TIMEZONE must be an IANA time zone such as UTC or Europe/Berlin" }),
    // A JSON file of card-network programmes and alert prices for the Monitor (docs/metrics.md);
    // unset: the built-in ones. The file itself is read and validated at start (lib/features/monitor/config.ts).
    /** The fewest attempts a gateway needs in a BIN's 90 days before the BIN lookup calls its approval rate the best. */
    BIN_EVIDENCE_MIN_ATTEMPTS: positiveInt("BIN_EVIDENCE_MIN_ATTEMPTS", 30),
    /**
     * Live share links viewed within this many days are kept fresh in the background, and what
     * signed-in people opened within them is fetched for each new day (0: neither).
     */
    SHARE_WARM_DAYS: intInRange("SHARE_WARM_DAYS", 0, 365, 7),
    /** How often the background warmer looks for answers about to go stale. */
    SHARE_WARM_INTERVAL_SECONDS: positiveInt("SHARE_WARM_INTERVAL_SECONDS", 30),
    MONITOR_CONFIG: z.string().min(1, { error: "MONITOR_CONFIG must be the path of a JSON file" }).optional(),
    // E-mail for alerts and scheduled reports (lib/core/mail). Unset SMTP_HOST: mail is off, and alerts
    // reach only the in-app inbox.
    SMTP_HOST: z.string().regex(/^[^\s/:@]+$/, { error: "SMTP_HOST must be a host name or address, e.g. smtp.example.com" }).optional(),
    SMTP_PORT: intInRange("SMTP_PORT", 1, 65_535, 587),
    SMTP_TLS: z.enum(["starttls", "tls", "none"], { error: "SMTP_TLS must be starttls, tls or none" }).default("starttls"),
    SMTP_USER: z.string().optional(),
    SMTP_PASSWORD: z.string().optional(),
    MAIL_FROM: z.string().refine(isMailFrom, { error: "MAIL_FROM must be an e-mail address or Name <address>" }).optional(),
    /** The demo mail sink's folder, set by `npm start` when it runs the sink: admins read its messages at /mail. */
    MAIL_SINK_DIR: z.string().min(1, { error: "MAIL_SINK_DIR must be a folder's path" }).optional(),
    // What alert rules and scheduled reports may do with mail (lib/features/notifications/policy.ts, docs/security.md).
    /** Outside domains mail may go to besides the users' own, comma-separated (default: none). */
    MAIL_ALLOWED_DOMAINS: z
      .string()
      .default("")
      .transform((v) => v.split(",").map((d) => d.trim().toLowerCase()).filter((d) => d !== ""))
      .refine((ds) => ds.every((d) => MAIL_DOMAIN.test(d)), { error: "MAIL_ALLOWED_DOMAINS must be domain names separated by commas, e.g. partner.example,bank.example" }),
    MAIL_MAX_RECIPIENTS: intInRange("MAIL_MAX_RECIPIENTS", 1, 70, 10),
    ALERT_RULES_PER_USER: intInRange("ALERT_RULES_PER_USER", 1, 1000, 20),
    SUBSCRIPTIONS_PER_USER: intInRange("SUBSCRIPTIONS_PER_USER", 1, 1000, 10),
    // At least 15: a shorter one lets "Evaluate now" mail the same news every few minutes.
    ALERT_MIN_COOLDOWN_MINUTES: intInRange("ALERT_MIN_COOLDOWN_MINUTES", 15, 10_080, 60),
    /** "Evaluate now" per user in any 15 minutes. */
    RUN_NOW_PER_USER: intInRange("RUN_NOW_PER_USER", 1, 100, 5),
    MAIL_PER_USER_PER_DAY: intInRange("MAIL_PER_USER_PER_DAY", 1, 100_000, 200),
    /** A scheduled report mailed to an address that is no user's: its share link ("share") or only its numbers ("numbers"). */
    MAIL_OUTSIDE_LINKS: z.enum(["share", "numbers"], { error: "MAIL_OUTSIDE_LINKS must be share or numbers" }).default("share"),
    /** Audit log entries older than this many days are deleted by the daily prune (lib/core/audit/retention.ts); nothing else removes them. */
    AUDIT_RETENTION_DAYS: intInRange("AUDIT_RETENTION_DAYS", 30, 3650, 400),
    /**
     * "true": this web server runs no background work (alerts, scheduled reports, mail, share warming,
     * audit retention); `npm run worker` runs it as its own process. Only on PostgreSQL: the embedded
     * store opens in one process, so there the web server runs it.
     */
    SEPARATE_WORKER: z
      .enum(["true", "false"], { error: "SEPARATE_WORKER must be true or false" })
      .default("false")
      .transform((v) => v === "true"),
    /**
     * Seconds between the background scheduler's looks at what is due (a divisor of 60). A slot runs
     * at the first tick after its time, so this is how late an alert or a scheduled report can start.
     */
    SCHEDULER_TICK_SECONDS: z.coerce
      .number({ error: SCHEDULER_TICK_ERROR })
      .int({ error: SCHEDULER_TICK_ERROR })
      .min(1, { error: SCHEDULER_TICK_ERROR })
      .refine((n) => 60 % n === 0, { error: SCHEDULER_TICK_ERROR })
      .default(30),
    /** The routing workspace's two-person rule: a change is applied only once another editor approves it. */
    ROUTING_TWO_PERSON: z
      .enum(["true", "false"], { error: "ROUTING_TWO_PERSON must be true or false" })
      .default("false")
      .transform((v) => v === "true"),
    /**
     * Calls one user may make in the service's routing bucket in any 60 s (previews, validations, BIN
     * lookups, changes): a third of the dashboard client's ROUTING_RATE_LIMIT (600), room for a bulk
     * lookup of 100 BINs and more, so no user's burst spends everyone's (lib/core/upstream/routing-allowance.ts).
     */
    ROUTING_CALLS_PER_USER: intInRange("ROUTING_CALLS_PER_USER", 1, 10_000, 200),
    /** The Chromium that renders PDF downloads and attachments (lib/core/pdf; its default, lib/core/pdf/chromium.ts); absent, PDFs are refused and say why. */
    CHROMIUM_PATH: z.string().min(1, { error: "CHROMIUM_PATH must be the path of a Chromium binary" }).default(defaultChromiumPath),
    /** One PDF's limit, from the start of its render to its last byte. */
    PDF_TIMEOUT_SECONDS: intInRange("PDF_TIMEOUT_SECONDS", 10, 600, 120),
    // Company sign-in with OpenID Connect (README "Company sign-in"). Unset OIDC_ISSUER: passwords only.
    ...passwordEnvShape,
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    /** Space-separated; `openid` is added when missing. */
    OIDC_SCOPES: z.string().default("openid email profile"),
    OIDC_PROVIDER_NAME: z.string().max(60, { error: "OIDC_PROVIDER_NAME must be at most 60 characters" }).default("single sign-on"),
    OIDC_ROLE_CLAIM: z.string().regex(/^[A-Za-z0-9_:./-]{1,100}$/, { error: "OIDC_ROLE_CLAIM must be a claim name such as groups or roles" }).default("groups"),
    OIDC_ROLE_MAP: z
      .string()
      .transform((v, ctx): RoleMap => {
        try {
          return parseRoleMap(v);
        } catch (e) {
          ctx.addIssue({ code: "custom", message: e instanceof Error ? e.message : "OIDC_ROLE_MAP is not valid" });
          return z.NEVER;
        }
      })
      .optional(),
    /** The longest an SSO session lasts (a person removed at the identity provider loses access within it). */
    OIDC_SESSION_MAX_AGE_SECONDS: intInRange("OIDC_SESSION_MAX_AGE_SECONDS", 5, 43_200, 3600),
    OIDC_LINK_BY_EMAIL: z
      .enum(["true", "false"], { error: "OIDC_LINK_BY_EMAIL must be true or false" })
      .default("false")
      .transform((v) => v === "true"),
  })
  .superRefine((env, ctx) => {
    const both = env.UPSTREAM_ACCESS_TOKEN !== undefined && env.UPSTREAM_TOKEN_URL !== undefined;
    const neither = env.UPSTREAM_ACCESS_TOKEN === undefined && env.UPSTREAM_TOKEN_URL === undefined;
    if (both || neither) {
      ctx.addIssue({
        code: "custom",
        path: ["UPSTREAM_ACCESS_TOKEN"],
        message: `set exactly one of UPSTREAM_ACCESS_TOKEN (a fixed token) or UPSTREAM_TOKEN_URL (fetch tokens with the client id and secret); ${both ? "both are" : "neither is"} set`,
      });
    }
    if ((env.UPSTREAM_ROUTING_CLIENT_ID === undefined) !== (env.UPSTREAM_ROUTING_CLIENT_SECRET === undefined)) {
      const missing = env.UPSTREAM_ROUTING_CLIENT_ID === undefined ? "UPSTREAM_ROUTING_CLIENT_ID" : "UPSTREAM_ROUTING_CLIENT_SECRET";
      ctx.addIssue({ code: "custom", path: [missing], message: `set both UPSTREAM_ROUTING_CLIENT_ID and UPSTREAM_ROUTING_CLIENT_SECRET, or neither; ${missing} is missing` });
    } else if (env.UPSTREAM_ROUTING_CLIENT_ID !== undefined && env.UPSTREAM_TOKEN_URL === undefined) {
      // The routing credential gets its tokens from the token URL; a fixed UPSTREAM_ACCESS_TOKEN is the reporting client's.
      ctx.addIssue({ code: "custom", path: ["UPSTREAM_TOKEN_URL"], message: "UPSTREAM_ROUTING_CLIENT_ID needs UPSTREAM_TOKEN_URL (its access tokens are fetched with its id and secret)" });
    }
    if ((env.SMTP_USER === undefined) !== (env.SMTP_PASSWORD === undefined)) {
      const missing = env.SMTP_USER === undefined ? "SMTP_USER" : "SMTP_PASSWORD";
      ctx.addIssue({ code: "custom", path: [missing], message: `set both SMTP_USER and SMTP_PASSWORD, or neither; ${missing} is missing` });
    }
    if (env.SEPARATE_WORKER && env.DATABASE_URL === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["SEPARATE_WORKER"],
        message: "SEPARATE_WORKER=true needs DATABASE_URL: the embedded store opens in one process only, so without PostgreSQL the web server runs the background work itself",
      });
    }
    ssoProblems(env).forEach(([path, message]) => ctx.addIssue({ code: "custom", path: [path], message }));
    if (env.SMTP_HOST !== undefined && env.MAIL_FROM === undefined) {
      ctx.addIssue({ code: "custom", path: ["MAIL_FROM"], message: "MAIL_FROM is required when SMTP_HOST is set (the sender of alert and report e-mail)" });
    }
  });

export type ServerEnv = z.infer<typeof serverEnvSchema>;

const OIDC_NEEDS_ISSUER = ["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_ROLE_MAP"] as const;
const LOOPBACK = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/;

/** What is wrong with the company sign-in settings together, as [variable, message] pairs. */
function ssoProblems(env: Pick<ServerEnv, "OIDC_ISSUER" | "OIDC_CLIENT_ID" | "OIDC_CLIENT_SECRET" | "OIDC_ROLE_MAP" | "OIDC_SSO_ONLY" | "OIDC_SCOPES">): [string, string][] {
  if (env.OIDC_ISSUER === undefined) {
    const stray = OIDC_NEEDS_ISSUER.filter((k) => env[k] !== undefined);
    const out: [string, string][] = stray.map((k) => [k, `${k} is set but OIDC_ISSUER is not; set OIDC_ISSUER to turn company sign-in on, or unset ${k}`]);
    if (env.OIDC_SSO_ONLY) out.push(["OIDC_SSO_ONLY", "OIDC_SSO_ONLY=true needs company sign-in (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ROLE_MAP)"]);
    return out;
  }
  const out: [string, string][] = [];
  for (const k of OIDC_NEEDS_ISSUER) if (env[k] === undefined) out.push([k, `${k} is required when OIDC_ISSUER is set`]);
  // Tokens and the client secret travel to the issuer: plain http only to this machine (tests, a local IdP).
  if (env.OIDC_ISSUER.startsWith("http://") && !LOOPBACK.test(env.OIDC_ISSUER)) out.push(["OIDC_ISSUER", "OIDC_ISSUER must be an https URL (plain http only for localhost)"]);
  if (/[?#]/.test(env.OIDC_ISSUER)) out.push(["OIDC_ISSUER", "OIDC_ISSUER must be the issuer's URL without a query or fragment"]);
  if (!/^[\x21-\x7e]+( [\x21-\x7e]+)*$/.test(env.OIDC_SCOPES)) out.push(["OIDC_SCOPES", "OIDC_SCOPES must be scope names separated by single spaces, e.g. openid email profile groups"]);
  return out;
}

/** The company sign-in settings, or null when it is off (no OIDC_ISSUER). */
export function ssoSettingsOf(env: ServerEnv): SsoSettings | null {
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET || !env.OIDC_ROLE_MAP) return null;
  const scopes = env.OIDC_SCOPES.split(" ").filter((s) => s !== "");
  return {
    issuer: env.OIDC_ISSUER,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    scopes: (scopes.includes("openid") ? scopes : ["openid", ...scopes]).join(" "),
    name: env.OIDC_PROVIDER_NAME,
    roleClaim: env.OIDC_ROLE_CLAIM,
    roleMap: env.OIDC_ROLE_MAP,
    sessionMaxAgeSeconds: env.OIDC_SESSION_MAX_AGE_SECONDS,
    linkByEmail: env.OIDC_LINK_BY_EMAIL,
    ssoOnly: env.OIDC_SSO_ONLY,
    breakGlass: env.OIDC_BREAK_GLASS,
  };
}

/** Pure: parses an environment record, throwing `EnvError` that names every bad variable. */
export function parseServerEnv(env: Record<string, string | undefined>): ServerEnv {
  return parseEnv(serverEnvSchema, env);
}

/** `passwordRefusal`'s settings from an environment holding only the company sign-in variables (`npm run users`). */
export function parsePasswordSettings(env: Record<string, string | undefined>): Pick<SsoSettings, "ssoOnly" | "breakGlass"> | null {
  const parsed = parseEnv(z.object(passwordEnvShape), env);
  return parsed.OIDC_ISSUER === undefined ? null : { ssoOnly: parsed.OIDC_SSO_ONLY, breakGlass: parsed.OIDC_BREAK_GLASS };
}

const storeEnvSchema = z.object(storeEnvShape);
export type StoreEnv = z.infer<typeof storeEnvSchema>;

/** Only the store's variables: the users CLI and `npm start` need no upstream configuration. */
export function parseStoreEnv(env: Record<string, string | undefined>): StoreEnv {
  return parseEnv(storeEnvSchema, env);
}
