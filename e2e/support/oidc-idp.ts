// The e2e run's OpenID Connect provider: `oidc-idp.ts <port> <users.json> <clients.json>`. The users
// file is read on every login and token, so a spec changes groups by rewriting it.
import { readFileSync } from "node:fs";
import { startTestIdp, type IdpClient, type IdpUser } from "../../lib/core/testing/oidc-idp";

const [port, usersFile, clientsFile] = process.argv.slice(2);
if (!port || !usersFile || !clientsFile) throw new Error("usage: oidc-idp.ts <port> <users.json> <clients.json>");
const idp = await startTestIdp({
  port: Number(port),
  users: () => JSON.parse(readFileSync(usersFile, "utf8")) as IdpUser[],
  clients: JSON.parse(readFileSync(clientsFile, "utf8")) as IdpClient[],
});
console.log(JSON.stringify({ msg: "test IdP listening", issuer: idp.issuer }));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void idp.close().then(() => process.exit(0)));
