// `npm run users -- <command>`: manage the dashboard's users in its store (DASHBOARD_DB, or
// DATABASE_URL for PostgreSQL). With the embedded store it refuses while the dashboard runs, since a
// PGlite directory belongs to one process. Results are JSON on stdout; generated passwords are
// printed once and stored only as scrypt hashes.
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { appendAudit, type AuditActor } from "../lib/core/audit/log";
import { generatePassword, hashPassword } from "../lib/core/auth/password";
import { ROLES, isRole } from "../lib/core/auth/roles";
import { EnvError, parsePasswordSettings, parseStoreEnv } from "../lib/core/env/env-schema";
import { storeConfigFrom } from "../lib/core/store/config";
import { StoreLockedError } from "../lib/core/store/lock";
import { openStore } from "../lib/core/store/open";
import type { Store } from "../lib/core/store/sql";
import { normalizeEmail, usersRepo } from "../lib/core/auth/users";
import { listUsers } from "../lib/features/users/admin";

const USAGE = `usage: npm run users -- <command> [options]
  create --email E --role ${ROLES.join("|")}   create a user; prints its generated password
  list                                        one JSON line per user (no hashes)
  disable --email E                           refuse sign-in and end the user's sessions
  enable --email E                            allow sign-in again
  set-password --email E                      generate a new password (ends existing sessions)`;

class UsageError extends Error {}

function requireEmail(value: string | undefined): string {
  const email = normalizeEmail(value ?? "");
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) throw new UsageError("--email must be an e-mail address");
  return email;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Whoever runs the CLI has the store's credentials, not a dashboard account: named by their OS user. */
function cliActor(): AuditActor {
  let osUser = "unknown";
  try {
    osUser = userInfo().username;
  } catch {
    // no passwd entry (some containers): stays unknown
  }
  return { kind: "cli", id: null, email: null, address: `cli:${osUser}` };
}

async function run(store: Store, command: string, opts: { email?: string; role?: string }): Promise<void> {
  const users = usersRepo(store);
  switch (command) {
    case "create": {
      const email = requireEmail(opts.email);
      const role = opts.role;
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      await store.transaction(async (tx) => {
        const created = await usersRepo(tx).create({ email, role, passwordHash });
        await appendAudit(tx, { action: "user.created", actor: cliActor(), subject: { kind: "user", id: created.id, label: created.email }, detail: { role } });
      });
      print({ email, role, password });
      return;
    }
    case "list":
      for (const u of await listUsers(store, parsePasswordSettings(process.env))) print(u);
      return;
    case "disable":
    case "enable": {
      const email = requireEmail(opts.email);
      const found = await store.transaction(async (tx) => {
        const user = await usersRepo(tx).findByEmail(email);
        if (!user) return false;
        if (command === "disable") await usersRepo(tx).disable(email);
        else await usersRepo(tx).enable(email);
        const action = command === "disable" ? "user.disabled" : "user.enabled";
        await appendAudit(tx, { action, actor: cliActor(), subject: { kind: "user", id: user.id, label: user.email } });
        return true;
      });
      if (!found) throw new Error(`no user with e-mail ${email}`);
      print({ email, disabled: command === "disable" });
      return;
    }
    case "set-password": {
      const email = requireEmail(opts.email);
      const user = await users.findByEmail(email);
      if (!user) throw new Error(`no user with e-mail ${email}`);
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      await store.transaction(async (tx) => {
        await usersRepo(tx).setPassword(email, passwordHash);
        await appendAudit(tx, { action: "user.password_reset", actor: cliActor(), subject: { kind: "user", id: user.id, label: user.email } });
      });
      print({ email, role: user.role, password });
      return;
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : "missing command");
  }
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      options: { email: { type: "string" }, role: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command = "", ...extra] = parsed.positionals;
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (extra.length > 0) {
    console.error(`unexpected arguments: ${extra.join(" ")}\n${USAGE}`);
    return 2;
  }
  if (!["create", "list", "disable", "enable", "set-password"].includes(command)) {
    console.error(`${command ? `unknown command "${command}"` : "missing command"}\n${USAGE}`);
    return 2;
  }

  let store: Store;
  try {
    store = await openStore(storeConfigFrom(parseStoreEnv(process.env)), { owner: "users CLI" });
  } catch (e) {
    if (e instanceof StoreLockedError || e instanceof EnvError) {
      console.error(`users: ${e.message}`);
      return 1;
    }
    throw e;
  }
  try {
    await run(store, command, parsed.values);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`users: ${e.message}\n${USAGE}`);
      return 2;
    }
    if (e instanceof Error) {
      console.error(`users: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`users: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  },
);
