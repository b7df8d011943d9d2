/**
 * API clients: id, display name, salted secret hash (scrypt), active flag, scopes. Secrets are shown
 * once at creation and never stored in clear. Every active client may route and report; a scope
 * grants more (CLIENT_SCOPES).
 */
import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import type { Database } from "./db";

const scrypt = promisify(scryptCb) as (password: string, salt: string, keylen: number) => Promise<Buffer>;
const KEY_LEN = 32;

/** Permissions beyond routing and reporting. `routing-admin`: change the live routing configuration. */
export const CLIENT_SCOPES = ["routing-admin"] as const;
export type ClientScope = (typeof CLIENT_SCOPES)[number];

export function isClientScope(s: string): s is ClientScope {
  return (CLIENT_SCOPES as readonly string[]).includes(s);
}

export type ApiClient = {
  client_id: string;
  name: string;
  active: boolean;
  secret_salt: string;
  secret_hash: string;
  /** Space-separated scopes. */
  scopes: string;
};

const scopeList = (scopes: string | null): string[] => (scopes ?? "").split(" ").filter((s) => s !== "");

export async function hashSecret(secret: string, salt = randomBytes(16).toString("hex")): Promise<{ salt: string; hash: string }> {
  const key = await scrypt(secret, salt, KEY_LEN);
  return { salt, hash: key.toString("hex") };
}

export async function createClient(db: Database, name: string, scopes: readonly ClientScope[] = []): Promise<{ client_id: string; client_secret: string }> {
  const client_id = `cl_${randomBytes(9).toString("base64url")}`;
  const client_secret = randomBytes(32).toString("base64url");
  const { salt, hash } = await hashSecret(client_secret);
  await db.run("INSERT INTO api_clients (client_id, name, secret_salt, secret_hash, active, scopes) VALUES (?, ?, ?, ?, TRUE, ?)", [
    client_id,
    name,
    salt,
    hash,
    [...new Set(scopes)].join(" "),
  ]);
  return { client_id, client_secret };
}

export async function setClientActive(db: Database, clientId: string, active: boolean): Promise<boolean> {
  const rows = await db.all("UPDATE api_clients SET active = ? WHERE client_id = ? RETURNING client_id", [active, clientId]);
  return rows.length > 0;
}

export async function listClients(db: Database): Promise<{ client_id: string; name: string; active: boolean; scopes: string[]; created_at: string }[]> {
  const rows = await db.all<{ client_id: string; name: string; active: boolean; scopes: string | null; created_at: string }>(
    "SELECT client_id, name, active, scopes, strftime(created_at, '%Y-%m-%dT%H:%M:%SZ') AS created_at FROM api_clients ORDER BY created_at",
  );
  return rows.map((r) => ({ ...r, scopes: scopeList(r.scopes) }));
}

/**
 * In-memory view of the clients for the request path. Only the server process writes the file while
 * it runs, so a load at start plus `refresh()` after its own writes keeps it exact. Verified secrets
 * are remembered as an HMAC under a per-process key, so the slow scrypt runs once per client and
 * process, and every comparison is constant-time.
 */
export class ClientRegistry {
  private clients = new Map<string, ApiClient>();
  private readonly verified = new Map<string, Buffer>();
  private readonly processKey = randomBytes(32);

  constructor(private readonly db: Database) {}

  async refresh(): Promise<void> {
    const rows = await this.db.all<ApiClient>("SELECT client_id, name, active, secret_salt, secret_hash, coalesce(scopes, '') AS scopes FROM api_clients");
    this.clients = new Map(rows.map((r) => [r.client_id, r]));
    this.verified.clear();
  }

  get(clientId: string): ApiClient | undefined {
    return this.clients.get(clientId);
  }

  isActive(clientId: string): boolean {
    return this.clients.get(clientId)?.active === true;
  }

  /** True when the client is active and holds `scope`. */
  hasScope(clientId: string, scope: ClientScope): boolean {
    const c = this.clients.get(clientId);
    return c?.active === true && scopeList(c.scopes).includes(scope);
  }

  /** True when the client exists, is active, and `secret` is its secret. */
  async verify(clientId: string, secret: string): Promise<boolean> {
    const client = this.clients.get(clientId);
    const mac = createHmac("sha256", this.processKey).update(clientId).update("\0").update(secret).digest();
    if (!client) {
      // Same work as a real check, so response time does not reveal which client ids exist.
      await scrypt(secret, "0".repeat(32), KEY_LEN);
      return false;
    }
    const known = this.verified.get(clientId);
    let ok: boolean;
    if (known) {
      ok = timingSafeEqual(known, mac);
    } else {
      const key = await scrypt(secret, client.secret_salt, KEY_LEN);
      const stored = Buffer.from(client.secret_hash, "hex");
      ok = stored.length === key.length && timingSafeEqual(stored, key);
      if (ok) this.verified.set(clientId, mac);
    }
    return ok && client.active;
  }
}
