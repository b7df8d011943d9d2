import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "@/lib/core/auth/authenticate";
import { DEMO_USERS, ensureDemoUsers, type DemoUser } from "./demo";
import { openStore } from "@/lib/core/store/open";
import { copyTestPglite } from "@/lib/core/store/testing/pglite";

let root: string;
let env: Record<string, string>;
let file: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "dashboard-demo-"));
  env = { DASHBOARD_DB: join(root, "db") };
  file = join(root, ".local", "demo-users.json");
  // A migrated store, as npm start finds it after the first run: migrating is the store test's.
  await copyTestPglite(env.DASHBOARD_DB!);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const saved = () => JSON.parse(readFileSync(file, "utf8")) as DemoUser[];

describe("ensureDemoUsers", () => {
  it("creates the demo users (two admins among them) once, keeps their passwords in a 0600 file, and restores lost ones", async () => {
    const first = await ensureDemoUsers({ env, file });
    expect(first.map((u) => [u.email, u.role])).toEqual(DEMO_USERS.map((u) => [u.email, u.role]));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(first);

    expect(await ensureDemoUsers({ env, file })).toEqual([]);

    unlinkSync(file);
    const reset = await ensureDemoUsers({ env, file });
    expect(reset).toHaveLength(DEMO_USERS.length);
    expect(saved().filter((u) => u.role === "admin").map((u) => u.email)).toEqual(["admin@demo.local", "admin2@demo.local"]);

    const store = await openStore({ kind: "pglite", dir: env.DASHBOARD_DB! }, { owner: "demo test" });
    try {
      for (const u of saved()) {
        expect(await authenticate(store, { email: u.email, password: u.password })).toMatchObject({ ok: true, user: { role: u.role } });
      }
    } finally {
      await store.close();
    }
  });
});
