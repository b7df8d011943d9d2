// Company sign-in in the e2e run: a real OpenID Connect provider (lib/core/testing/oidc-idp.ts) started
// by the Playwright config beside the service and the dashboard, its users in a JSON file that a spec
// rewrites to change someone's groups or remove them. Secrets here are throwaway test values.
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IdpUser } from "../../lib/core/testing/oidc-idp";
import { freePort } from "../../lib/core/testing/free-port";

export interface E2EOidc {
  issuer: string;
  port: number;
  client: { client_id: string; client_secret: string };
  /** The IdP's users (IdpUser[]), read by it on every login and token. */
  usersFile: string;
  /** The second dashboard e2e/sso.spec.ts starts with OIDC_SSO_ONLY and a short session lifetime. */
  ssoOnlyUrl: string;
  providerName: string;
}

const ROLE_MAP = { "bi-admins": "admin", "bi-analysts": "analyst", "bi-viewers": "viewer" };

const user = (username: string, groups: string[]): IdpUser => ({ sub: `e2e-${username}`, username, password: `idp-${username}-password`, email: `${username}@sso.e2e.test`, groups });

/** The people at the IdP when a run starts. */
export const IDP_USERS: readonly IdpUser[] = [user("ada", ["bi-analysts"]), user("cyd", ["marketing"]), user("sam", ["bi-viewers"])];

/** Picks the IdP's and the second dashboard's ports (`pickPort`, free ones by default) and writes the IdP's users. */
export async function prepareOidc(dir: string, dashboardUrl: string, pickPort: () => Promise<number> = freePort): Promise<E2EOidc> {
  const port = await pickPort();
  const ssoOnlyUrl = `http://localhost:${await pickPort()}`;
  const usersFile = join(dir, "idp-users.json");
  writeFileSync(usersFile, JSON.stringify(IDP_USERS, null, 2));
  const oidc: E2EOidc = {
    issuer: `http://127.0.0.1:${port}`,
    port,
    client: { client_id: "e2e-dashboard", client_secret: randomBytes(24).toString("base64url") },
    usersFile,
    ssoOnlyUrl,
    providerName: "Corp IdP",
  };
  writeFileSync(join(dir, "idp-clients.json"), JSON.stringify([{ ...oidc.client, redirect_uris: [dashboardUrl, ssoOnlyUrl].map((u) => `${u}/api/auth/callback/oidc`) }]));
  return oidc;
}

/** The dashboard's company sign-in settings for the run (passwords stay on: the other specs use them). */
export function oidcEnvFor(oidc: E2EOidc): Record<string, string> {
  return {
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: oidc.client.client_id,
    OIDC_CLIENT_SECRET: oidc.client.client_secret,
    OIDC_SCOPES: "openid email profile groups",
    OIDC_PROVIDER_NAME: oidc.providerName,
    OIDC_ROLE_MAP: JSON.stringify(ROLE_MAP),
  };
}

/** The Playwright web server entry that runs the IdP. */
export function oidcWebServer(oidc: E2EOidc, dir: string) {
  return {
    command: `${process.execPath} --import tsx e2e/support/oidc-idp.ts ${oidc.port} ${oidc.usersFile} ${join(dir, "idp-clients.json")}`,
    url: `${oidc.issuer}/.well-known/openid-configuration`,
    timeout: 60_000,
    reuseExistingServer: false,
    stdout: "ignore" as const,
  };
}

export function readIdpUsers(oidc: E2EOidc): IdpUser[] {
  return JSON.parse(readFileSync(oidc.usersFile, "utf8")) as IdpUser[];
}

/** Changes the IdP's users: the next login or token reads them. */
export function writeIdpUsers(oidc: E2EOidc, users: IdpUser[]): void {
  writeFileSync(oidc.usersFile, JSON.stringify(users, null, 2));
}
