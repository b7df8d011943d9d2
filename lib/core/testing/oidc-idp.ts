/**
 * A real OpenID Connect provider for tests: `oidc-provider` (a certified implementation) on a free
 * 127.0.0.1 port, with users in groups. The users are read on every login and every token, so a
 * test changes someone's groups, or removes them, by changing what `users()` returns.
 *
 * The login page is this file's own small form (user name and password); consent is implied for the
 * registered clients, as a company's IdP does for its own applications. ID tokens carry the granted
 * scopes' claims (`groups` among them), as the dashboard reads the role claim from the ID token.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";

export interface IdpUser {
  /** The subject (`sub`): stable for the person whatever their e-mail or groups. */
  sub: string;
  /** What the person types on the IdP's login page. */
  username: string;
  password: string;
  email: string;
  email_verified?: boolean;
  name?: string;
  groups: string[];
}

export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface TestIdp {
  issuer: string;
  port: number;
  close(): Promise<void>;
}

const SCOPE_CLAIMS = { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function loginPage(uid: string, error: string | null): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test IdP sign-in</title></head><body>
<main><h1>Test IdP</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Username <input name="username" autocomplete="username"></label>
<label>IdP password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Log in to the IdP</button></form></main></body></html>`;
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of req) body += String(chunk);
  return new URLSearchParams(body);
}

/** Starts the provider; `port` 0 (the default) takes a free one. */
export async function startTestIdp(options: { users: () => IdpUser[]; clients: IdpClient[]; port?: number }): Promise<TestIdp> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== "object") throw new Error("the test IdP has no port");
  const issuer = `http://127.0.0.1:${address.port}`;
  const find = (sub: string) => options.users().find((u) => u.sub === sub);

  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const configuration: Configuration = {
    clients: options.clients.map((c) => ({ ...c, grant_types: ["authorization_code"], response_types: ["code"] })),
    jwks: { keys: [{ ...signingKey, kid: "test-idp", use: "sig", alg: "RS256" }] },
    cookies: { keys: ["test-idp-cookie-key-not-secret"] },
    claims: SCOPE_CLAIMS,
    scopes: ["openid", "email", "profile", "groups"],
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Consent is implied: the grant covers what the client asked for.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const oidc = ctx.oidc;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(oidc.client!.clientId);
      if (grantId) return oidc.provider.Grant.find(grantId);
      const grant = new oidc.provider.Grant({ clientId: oidc.client!.clientId, accountId: oidc.session!.accountId! });
      grant.addOIDCScope(String(oidc.params?.scope ?? "openid"));
      await grant.save();
      return grant;
    },
    findAccount: (_ctx, sub) => {
      const user = find(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: user.email, email_verified: user.email_verified ?? true, name: user.name ?? user.username, groups: [...user.groups] }),
      };
    },
    renderError: (ctx, out) => {
      ctx.type = "html";
      ctx.body = `<!doctype html><html lang="en"><head><title>Test IdP error</title></head><body><h1>Test IdP error</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ""))}</p></body></html>`;
    },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, submit: boolean): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error("interaction mismatch");
    const show = (error: string | null, status = 200) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
      res.end(loginPage(uid, error));
    };
    if (!submit) return show(null);
    const form = await formBody(req);
    const user = options.users().find((u) => u.username === form.get("username"));
    if (!user || user.password !== form.get("password")) return show("Unknown user name or wrong password.", 401);
    await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
  }

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec((req.url ?? "").split("?")[0]!);
    if (!m) return void callback(req, res);
    interaction(req, res, m[1]!, req.method === "POST" && m[2] === "/login").catch((e: unknown) => {
      if (res.headersSent) return;
      res.writeHead(400, { "content-type": "text/plain" });
      res.end(`interaction failed: ${e instanceof Error ? e.message : String(e)}`);
    });
  });

  return {
    issuer,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
