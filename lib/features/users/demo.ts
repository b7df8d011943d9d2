/**
 * Demo mode's users (`npm start`): admin@demo.local and admin2@demo.local, analyst@demo.local and
 * viewer@demo.local with generated passwords, kept in the ignored `.local/demo-users.json` (mode 0600). Outside demo mode
 * nothing creates users with known passwords.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { generatePassword, hashPassword, verifyPassword } from "@/lib/core/auth/password";
import type { Role } from "@/lib/core/auth/roles";
import { parseStoreEnv } from "@/lib/core/env/env-schema";
import { storeConfigFrom } from "@/lib/core/store/config";
import { openStore } from "@/lib/core/store/open";
import { usersRepo } from "@/lib/core/auth/users";

export interface DemoUser {
  email: string;
  role: Role;
  password: string;
}

export const DEMO_USERS: readonly { email: string; role: Role }[] = [
  { email: "admin@demo.local", role: "admin" },
  // A second admin: the demo runs the routing workspace's two-person rule, where a change waits for another editor.
  { email: "admin2@demo.local", role: "admin" },
  { email: "analyst@demo.local", role: "analyst" },
  { email: "viewer@demo.local", role: "viewer" },
];

export const DEMO_USERS_FILE = ".local/demo-users.json";

function readFile(file: string): DemoUser[] {
  if (!existsSync(file)) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return Array.isArray(parsed) ? (parsed as DemoUser[]) : [];
  } catch {
    return [];
  }
}

/**
 * Creates the demo users that are missing, and gives a new password to any whose password the file
 * doesn't hold (the file was deleted). Returns those it created or reset, with their passwords;
 * the file then lists them all. Opens and closes the store, so call it before the dashboard starts.
 */
export async function ensureDemoUsers(
  options: { env?: Record<string, string | undefined>; file?: string } = {},
): Promise<DemoUser[]> {
  const file = options.file ?? DEMO_USERS_FILE;
  const store = await openStore(storeConfigFrom(parseStoreEnv(options.env ?? process.env)), { owner: "npm start (demo users)" });
  const known = new Map(readFile(file).map((u) => [u.email, u]));
  const changed: DemoUser[] = [];
  try {
    const users = usersRepo(store);
    for (const demo of DEMO_USERS) {
      const existing = await users.findByEmail(demo.email);
      const saved = known.get(demo.email);
      if (existing && saved && (await verifyPassword(saved.password, existing.passwordHash))) continue;
      const entry: DemoUser = { ...demo, role: existing?.role ?? demo.role, password: generatePassword() };
      const hash = await hashPassword(entry.password);
      if (existing) await users.setPassword(demo.email, hash);
      else await users.create({ email: demo.email, role: demo.role, passwordHash: hash });
      known.set(demo.email, entry);
      changed.push(entry);
    }
  } finally {
    await store.close();
  }
  if (changed.length > 0 || !existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify([...known.values()], null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return changed;
}
