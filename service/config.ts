/** The service's configuration, from the environment, validated once at start. */
import { z } from "zod";
import { intInRange, parseEnv, positiveInt } from "@/lib/contract/env";
import type { ServerTimeouts } from "./http/server";

/**
 * DuckDB's resources, bounded on purpose (docs/scale.md): without a limit DuckDB takes up to 80 % of
 * the machine's memory, and a 100 M-attempt generation grew past it. Past the limit, sorts,
 * aggregates and joins spill to the temporary directory (by default `<file>.tmp` beside the file).
 * Read by the service, its CLI, `npm start` and the benches alike.
 */
const DuckDbEnvShape = {
  DUCKDB_THREADS: z.coerce.number({ error: "DUCKDB_THREADS must be a whole number" }).int({ error: "DUCKDB_THREADS must be a whole number" }).min(1, { error: "DUCKDB_THREADS must be at least 1" }).optional(),
  DUCKDB_MEMORY_LIMIT: z
    .string()
    .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, { error: "DUCKDB_MEMORY_LIMIT must be a size such as 2GB or 1536MiB" })
    .default("2GB"),
  DUCKDB_TEMP_DIRECTORY: z.string().min(1).optional(),
};
export type DuckDbConfig = z.infer<z.ZodObject<typeof DuckDbEnvShape>>;

/** DuckDB's settings alone (for the CLI and scripts, which need no token secret). */
export function loadDuckDbConfig(env: Record<string, string | undefined> = process.env): DuckDbConfig {
  return parseEnv(z.object(DuckDbEnvShape), env, "DuckDB configuration");
}

/** The options `Database.open` takes for a configuration. */
export function duckDbOptions(c: DuckDbConfig): { threads?: number; memoryLimit: string; tempDirectory?: string } {
  return { memoryLimit: c.DUCKDB_MEMORY_LIMIT, ...(c.DUCKDB_THREADS ? { threads: c.DUCKDB_THREADS } : {}), ...(c.DUCKDB_TEMP_DIRECTORY ? { tempDirectory: c.DUCKDB_TEMP_DIRECTORY } : {}) };
}

const ServiceEnvSchema = z.object({
  ...DuckDbEnvShape,
  SERVICE_DB: z.string().min(1).default("data/service.duckdb"),
  SERVICE_HOST: z.string().min(1).default("127.0.0.1"),
  SERVICE_PORT: intInRange("SERVICE_PORT", 0, 65535, 4000, "a port number, 0 to 65535"),
  SERVICE_TOKEN_SECRET: z
    .string({ error: "SERVICE_TOKEN_SECRET is required: a random string of at least 32 characters that signs access tokens" })
    .min(32, { error: "SERVICE_TOKEN_SECRET must be at least 32 characters" }),
  REPORT_RATE_LIMIT: positiveInt("REPORT_RATE_LIMIT", 5),
  ROUTING_RATE_LIMIT: positiveInt("ROUTING_RATE_LIMIT", 600),
  TOKEN_RATE_LIMIT: positiveInt("TOKEN_RATE_LIMIT", 10),
  /** Token requests per peer address, whatever client_id they name: a flood of made-up ids cannot keep a core busy with scrypt. */
  TOKEN_ADDRESS_RATE_LIMIT: positiveInt("TOKEN_ADDRESS_RATE_LIMIT", 30),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt("RATE_LIMIT_WINDOW_SECONDS", 60),
  /**
   * Reverse proxies in front of the service that append to X-Forwarded-For. The per-address limits
   * read the address the outermost of them saw, that many entries from the right; 0 (the default)
   * trusts no forwarded header and counts the socket's address (docs/security.md).
   */
  SERVICE_TRUSTED_PROXY_HOPS: intInRange("SERVICE_TRUSTED_PROXY_HOPS", 0, 10, 0),
  TOKEN_TTL_SECONDS: positiveInt("TOKEN_TTL_SECONDS", 3600),
  /** A caller's headers must arrive within this many seconds of the request's first byte (docs/security.md). */
  SERVICE_HEADERS_TIMEOUT_SECONDS: intInRange("SERVICE_HEADERS_TIMEOUT_SECONDS", 1, 600, 10),
  /** A caller's whole request, body included, must arrive within this many seconds; past it the connection is answered 408 and closed. */
  SERVICE_REQUEST_TIMEOUT_SECONDS: intInRange("SERVICE_REQUEST_TIMEOUT_SECONDS", 1, 3600, 30),
  /** A kept-alive connection idle this long between requests is closed (longer than clients' own idle timeouts, so they close first). */
  SERVICE_KEEPALIVE_TIMEOUT_SECONDS: intInRange("SERVICE_KEEPALIVE_TIMEOUT_SECONDS", 1, 600, 65),
  /** On a replica: connections to the owner for relayed calls (tokens, routing), apart from those reports are admitted on. */
  SERVICE_RELAY_CONNECTIONS: positiveInt("SERVICE_RELAY_CONNECTIONS", 32),
  /** On a replica: relayed calls one caller address may have at the owner at once; more wait in that address's own line. */
  SERVICE_RELAY_PER_CLIENT: positiveInt("SERVICE_RELAY_PER_CLIENT", 8),
  /** On a replica: relayed calls of one caller address that may wait for one of its SERVICE_RELAY_PER_CLIENT; more are refused 429. */
  SERVICE_RELAY_QUEUE_PER_CLIENT: positiveInt("SERVICE_RELAY_QUEUE_PER_CLIENT", 256),
  SERVICE_LOG: z.enum(["json", "silent"]).default("json"),
  /** "1" adds `POST /bench/bare` (no auth, no routing; a routing-sized answer) for bench/routing.ts. */
  SERVICE_BENCH_ENDPOINTS: z.enum(["0", "1"]).default("0"),
  /** Where reports are answered: the DuckDB file itself, or ClickHouse (docs/scale.md). */
  SERVICE_ENGINE: z.enum(["duckdb", "clickhouse"], { error: "SERVICE_ENGINE must be duckdb or clickhouse" }).default("duckdb"),
  /** Each ClickHouse server's HTTP URL, comma-separated; reports go to the first. */
  CLICKHOUSE_URL: z
    .string()
    .transform((v) => v.split(",").map((u) => u.trim()).filter((u) => u.length > 0))
    .refine((urls) => urls.length > 0 && urls.every((u) => /^https?:\/\/[^\s]+$/.test(u)), { error: "CLICKHOUSE_URL must be one or more http(s) URLs, comma-separated" })
    .optional(),
  /** The cluster (in the servers' remote_servers) the Distributed tables span; required with several servers. */
  CLICKHOUSE_CLUSTER: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "CLICKHOUSE_CLUSTER must be a cluster name (letters, digits, _)" }).optional(),
  /** The prefix of the service's ClickHouse databases (one per published version, and _meta). */
  /**
   * Set on a replica: the owner instance (the one with the DuckDB file) that admits its reports and
   * answers its token and routing calls (service/http/owner.ts). Replicas read ClickHouse.
   */
  SERVICE_OWNER_URL: z.string().regex(/^https?:\/\/[^\s/]+\/?$/, { error: "SERVICE_OWNER_URL must be the owner instance's http(s)://host:port" }).optional(),
  CLICKHOUSE_DATABASE: z.string().regex(/^[a-z][a-z0-9_]{0,30}$/, { error: "CLICKHOUSE_DATABASE must be 1 to 31 lower-case letters, digits or _, starting with a letter" }).default("payments"),
}).superRefine((env, ctx) => {
  if (env.SERVICE_HEADERS_TIMEOUT_SECONDS > env.SERVICE_REQUEST_TIMEOUT_SECONDS) {
    ctx.addIssue({ code: "custom", path: ["SERVICE_HEADERS_TIMEOUT_SECONDS"], message: "SERVICE_HEADERS_TIMEOUT_SECONDS must be at most SERVICE_REQUEST_TIMEOUT_SECONDS (the headers are part of the request)" });
  }
  if (env.SERVICE_OWNER_URL && env.SERVICE_ENGINE !== "clickhouse") {
    ctx.addIssue({ code: "custom", path: ["SERVICE_OWNER_URL"], message: "a replica (SERVICE_OWNER_URL) answers reports from ClickHouse: set SERVICE_ENGINE=clickhouse and CLICKHOUSE_URL" });
  }
  if (env.SERVICE_ENGINE !== "clickhouse") return;
  if (!env.CLICKHOUSE_URL) ctx.addIssue({ code: "custom", path: ["CLICKHOUSE_URL"], message: "CLICKHOUSE_URL is required with SERVICE_ENGINE=clickhouse" });
  else if (env.CLICKHOUSE_URL.length > 1 && !env.CLICKHOUSE_CLUSTER) {
    ctx.addIssue({ code: "custom", path: ["CLICKHOUSE_CLUSTER"], message: "CLICKHOUSE_CLUSTER is required with several ClickHouse servers" });
  }
});
export type ServiceConfig = z.infer<typeof ServiceEnvSchema>;

/** The request deadlines every server of the service (owner or replica) applies. */
export function serverTimeouts(c: ServiceConfig): ServerTimeouts {
  return { headersMs: c.SERVICE_HEADERS_TIMEOUT_SECONDS * 1000, requestMs: c.SERVICE_REQUEST_TIMEOUT_SECONDS * 1000, keepAliveMs: c.SERVICE_KEEPALIVE_TIMEOUT_SECONDS * 1000 };
}

/** The configuration from an environment record; empty values are unset (one rule with the dashboard's). */
export function loadServiceConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  return parseEnv(ServiceEnvSchema, env, "service configuration");
}
