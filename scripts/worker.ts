// `npm run worker`: the dashboard's background work (lib/startup/background.ts) as a process of its
// own, for web servers started with SEPARATE_WORKER=true on one PostgreSQL database. It reads the
// dashboard's environment (validated the same way) and runs until SIGTERM or SIGINT, when it lets the
// slot run and the send under way finish. Run with the react-server condition (the modules it loads
// are server-only): `node --conditions=react-server --import tsx scripts/worker.ts`.
import { EnvError, serverEnv, type ServerEnv } from "../lib/core/env/env";
import { startBackgroundWork } from "../lib/startup/background";
import { MonitorConfigError, monitorConfig } from "../lib/features/monitor/config";
import { getStore } from "../lib/core/store";

function fail(message: string): never {
  console.error(`worker: ${message}`);
  process.exit(1);
}

let env: ServerEnv;
try {
  env = serverEnv();
  monitorConfig();
} catch (e) {
  if (e instanceof EnvError || e instanceof MonitorConfigError) fail(e.message);
  throw e;
}
if (!env.DATABASE_URL) {
  // The embedded store opens in one process only: the web server holds it and runs the work itself.
  fail("set DATABASE_URL: without PostgreSQL the dashboard's web server runs the background work itself");
}

const work = await startBackgroundWork(env).catch((e: unknown) => fail(`could not start: ${e instanceof Error ? e.message : String(e)}`));
// The scheduler's and the mail worker's timers let a web server exit; this process exists to run them.
const alive = setInterval(() => undefined, 1 << 30);
console.info(JSON.stringify({ level: "info", msg: "worker started", worker_id: work.workerId }));

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.info(JSON.stringify({ level: "info", msg: "worker stopping", signal }));
  void work
    .stop()
    .then(async () => (await getStore()).close())
    .then(
      () => process.exit(0),
      (e: unknown) => fail(`stopping: ${e instanceof Error ? e.message : String(e)}`),
    )
    .finally(() => clearInterval(alive));
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
