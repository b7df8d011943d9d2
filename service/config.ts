/** The service's configuration, from the environment, validated once at start. */
import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

const ServiceEnvSchema = z.object({
  SERVICE_DB: z.string().min(1).default("data/service.duckdb"),
  SERVICE_HOST: z.string().min(1).default("127.0.0.1"),
  SERVICE_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  SERVICE_TOKEN_SECRET: z
    .string({ error: "SERVICE_TOKEN_SECRET is required: a random string of at least 32 characters that signs access tokens" })
    .min(32, { error: "SERVICE_TOKEN_SECRET must be at least 32 characters" }),
  REPORT_RATE_LIMIT: positiveInt(5),
  ROUTING_RATE_LIMIT: positiveInt(600),
  TOKEN_RATE_LIMIT: positiveInt(10),
  /** Token requests per peer address, whatever client_id they name: a flood of made-up ids cannot keep a core busy with scrypt. */
  TOKEN_ADDRESS_RATE_LIMIT: positiveInt(30),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  TOKEN_TTL_SECONDS: positiveInt(3600),
  SERVICE_LOG: z.enum(["json", "silent"]).default("json"),
  DUCKDB_THREADS: z.coerce.number().int().min(1).optional(),
  /** "1" adds `POST /bench/bare` (no auth, no routing; a routing-sized answer) for bench/routing.ts. */
  SERVICE_BENCH_ENDPOINTS: z.enum(["0", "1"]).default("0"),
});
export type ServiceConfig = z.infer<typeof ServiceEnvSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  const r = ServiceEnvSchema.safeParse(env);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid service configuration:\n${lines.join("\n")}`);
  }
  return r.data;
}
