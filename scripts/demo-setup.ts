// What `npm start` (scripts/start.ts) puts into the service's database besides the generated data:
// the API clients of the demo, and a routing history with a change old enough to have been measured.
import { ROUTING_ADMIN_SCOPE } from "../lib/contract/bin-routing";
import { addDays } from "../lib/contract/dates";
import { createClient } from "../service/clients";
import type { Database } from "../service/db";
import { buildDemoRoutingConfig } from "../service/routing/demo";
import { loadRoutingConfig } from "../service/routing/loader";
import { selectVersions } from "../service/routing/versions";

interface ClientSecret {
  client_id: string;
  client_secret: string;
}

/** The demo's API clients, kept in .local/demo-secrets.json and reused while the database knows them. */
export interface DemoClients {
  /** The dashboard's reports. */
  client?: ClientSecret;
  /** The routing workspace's client, with the routing-admin scope: only it may change the live routing configuration. */
  routingClient?: ClientSecret;
  /**
   * Checking a number by hand (the README's curl example): a client of its own, so a manual check
   * spends its own rate-limit bucket and never the dashboard's.
   */
  manualClient?: ClientSecret;
}

const CLIENTS: readonly { key: keyof DemoClients; name: string; scopes: readonly (typeof ROUTING_ADMIN_SCOPE)[] }[] = [
  { key: "client", name: "demo dashboard", scopes: [] },
  { key: "routingClient", name: "demo dashboard routing", scopes: [ROUTING_ADMIN_SCOPE] },
  { key: "manualClient", name: "manual checks", scopes: [] },
];

/**
 * Creates each demo client the database does not know (first run, or a new database) into `secrets`;
 * returns the keys of those it created.
 */
export async function ensureDemoClients(db: Database, secrets: DemoClients): Promise<(keyof DemoClients)[]> {
  const created: (keyof DemoClients)[] = [];
  for (const c of CLIENTS) {
    const known = secrets[c.key];
    const active = known ? await db.all("SELECT 1 FROM api_clients WHERE client_id = ? AND active", [known.client_id]) : [];
    if (active.length > 0) continue;
    secrets[c.key] = await createClient(db, c.name, c.scopes);
    created.push(c.key);
  }
  return created;
}

/** How long before today the demo's two routing versions were applied. */
export const DEMO_ROUTING_HISTORY = { olderDaysAgo: 45, currentDaysAgo: 21 } as const;

/**
 * The demo routing configuration with a history, once per database: an older version without the
 * issuing banks' rules, applied 45 days before `today`, and the demo configuration, which adds them,
 * 21 days before, so "measured after" has two full windows of those banks' traffic on the first day.
 * Nothing is loaded when the database has versions already (its history is kept as it is).
 * Returns the versions it loaded.
 */
export async function seedDemoRoutingHistory(db: Database, today: string): Promise<number[]> {
  if ((await selectVersions(db)).length > 0) return [];
  const current = await buildDemoRoutingConfig(db);
  const older = { ...current, rules: (current.rules ?? []).filter((r) => r.type !== "BANK") };
  const at = (daysAgo: number) => new Date(`${addDays(today, -daysAgo)}T09:00:00.000Z`);
  const steps = [
    { config: older, now: at(DEMO_ROUTING_HISTORY.olderDaysAgo), reason: "Demo: BIN rules and the fallback" },
    { config: current, now: at(DEMO_ROUTING_HISTORY.currentDaysAgo), reason: "Demo: route the largest and the prepaid issuers by bank" },
  ];
  const loaded: number[] = [];
  for (const s of steps) {
    const result = await loadRoutingConfig(db, s.config, { now: s.now, author: "demo setup", reason: s.reason });
    if (!result.ok) throw new Error(`demo routing configuration rejected: ${result.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
    loaded.push(result.version);
  }
  return loaded;
}

/**
 * What makes the demo run as a cautious deployment would, unless the environment says otherwise: a
 * routing change applies once a second editor approves it (the demo has two admins for that), and
 * with the dashboard reached directly on localhost no X-Forwarded-For is trusted.
 */
export function demoSafetyEnv(env: Readonly<Record<string, string | undefined>>): { ROUTING_TWO_PERSON: string; TRUSTED_PROXY_HOPS: string } {
  return { ROUTING_TWO_PERSON: env.ROUTING_TWO_PERSON ?? "true", TRUSTED_PROXY_HOPS: env.TRUSTED_PROXY_HOPS ?? "0" };
}

/**
 * The shell lines `npm start` prints for checking a number by hand: a token for the client for manual
 * checks (its secret read from `secretsFile`, relative to where they are run), then this month's
 * order summary by date as that client, so the check never spends the dashboard's quota.
 */
export function manualCheckLines(serviceUrl: string, clientId: string, secretsFile: string, today: string): string {
  return [
    `SECRET=$(node -p 'require("./${secretsFile}").manualClient.client_secret')`,
    `TOKEN=$(curl -s ${serviceUrl}/api/auth/token -H 'content-type: application/json' \\`,
    `  -d "{\\"client_id\\":\\"${clientId}\\",\\"client_secret\\":\\"$SECRET\\"}" | node -p 'JSON.parse(require("fs").readFileSync(0)).data.access_token')`,
    `curl -s ${serviceUrl}/api/data -H "authorization: Bearer $TOKEN" -H 'x-client-id: ${clientId}' \\`,
    `  -H "x-client-secret: $SECRET" -H 'content-type: application/json' \\`,
    `  -d '{"start_date":"${today.slice(0, 8)}01","end_date":"${today}","group_by":["date"],"metrics":["attempts","approvals","revenue"]}'`,
  ].join("\n");
}

