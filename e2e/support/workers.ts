// One environment per Playwright worker, made from the run prepared by prepare.ts: a copy of its
// service database and dashboard store (the same data, API clients and users) with a service and a
// dashboard of its own on free ports. Workers then never share a reporting quota, an answer cache or
// a store, so they run side by side without waiting for each other's windows. Each worker has a
// test IdP of its own too (its users file, which e2e/sso.spec.ts rewrites, and its ports). Writes
// <dir>/w<i>/env.json for each worker and <dir>/workers.json (how many).
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../lib/core/testing/free-port";
import { prepareOidc } from "./oidc";
import type { E2EEnv } from "./prepare";

const DIR = process.env.E2E_DIR ?? ".e2e";
const count = Number(process.argv[2] ?? 1);
if (!Number.isInteger(count) || count < 1) throw new Error(`e2e workers: want a whole number of workers of at least 1, not ${process.argv[2]}`);

const base = JSON.parse(readFileSync(join(DIR, "env.json"), "utf8")) as E2EEnv;
const taken = new Set<number>();
async function port(): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (!taken.has(p)) {
      taken.add(p);
      return p;
    }
  }
}

for (let i = 0; i < count; i++) {
  const dir = join(DIR, `w${i}`);
  mkdirSync(dir, { recursive: true });
  const serviceDb = join(dir, "service.duckdb");
  cpSync(base.serviceDb, serviceDb);
  if (existsSync(`${base.serviceDb}.wal`)) cpSync(`${base.serviceDb}.wal`, `${serviceDb}.wal`);
  const dashboardDb = join(dir, "dashboard");
  cpSync(base.dashboardDb, dashboardDb, { recursive: true });
  const servicePort = await port();
  const dashboardPort = await port();
  const dashboardUrl = `http://localhost:${dashboardPort}`;
  const oidc = await prepareOidc(dir, dashboardUrl, port);
  const env: E2EEnv = {
    ...base,
    dir,
    serviceDb,
    servicePort,
    serviceUrl: `http://127.0.0.1:${servicePort}`,
    dashboardPort,
    dashboardUrl,
    dashboardDb,
    oidc,
  };
  writeFileSync(join(dir, "env.json"), JSON.stringify(env, null, 2));
}
writeFileSync(join(DIR, "workers.json"), JSON.stringify({ count }));
