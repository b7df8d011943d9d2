/**
 * The one environment parser of both processes (the service and the dashboard): one rule for empty
 * values (`FOO=` is unset, so `SERVICE_PORT=` is the default port, not port 0), and errors that
 * name every bad variable and the rule, never the value (values can be secrets).
 */
import { z } from "zod";

/** Thrown for a bad environment; `variables` lists each offending name. */
export class EnvError extends Error {
  constructor(
    readonly variables: string[],
    readonly problems: string[],
    what = "server environment",
  ) {
    super(`Invalid ${what}:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

/** A whole number greater than 0, with a default; the messages name the variable. */
export const positiveInt = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int({ error: `${name} must be a whole number` })
    .positive({ error: `${name} must be greater than 0` })
    .default(fallback);

/** A whole number from `min` to `max`, with a default; every message names the variable and the range. */
export const intInRange = (name: string, min: number, max: number, fallback: number, what = `a whole number from ${min} to ${max}`) => {
  const error = `${name} must be ${what}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback);
};

/** Empty strings count as unset, as `FOO=` in a shell or a compose file usually means "not set". */
function withoutEmpty(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v.trim() !== "") out[k] = v.trim();
  return out;
}

/** Parses an environment record with `schema`, throwing an `EnvError` that names every bad variable. */
export function parseEnv<T>(schema: z.ZodType<T>, env: Record<string, string | undefined>, what?: string): T {
  const result = schema.safeParse(withoutEmpty(env));
  if (result.success) return result.data;
  const variables: string[] = [];
  const problems: string[] = [];
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? "(environment)");
    if (!variables.includes(name)) variables.push(name);
    // zod's own messages for an absent value don't name the variable; ours always do.
    problems.push(issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`);
  }
  throw new EnvError(variables, problems, what);
}
