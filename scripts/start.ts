// `npm start`: the whole product on this machine in demo mode. Generates demo data and an API client
// on first run (secrets kept in the ignored .local/ folder and reused), starts the service, then
// builds and starts the dashboard, and prints where everything is. Ctrl-C stops both. Unless SMTP_HOST
// is set, the dashboard's e-mail goes to a local SMTP sink that keeps each message in .local/mail/.
// With DATABASE_URL (PostgreSQL), the background work (alerts, scheduled reports, mail, share warming)
// runs in its own process, scripts/worker.ts, started and stopped with the rest; on the embedded store
// only one process can open the store file, so the dashboard's web server runs it itself.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { ROUTING_ADMIN_SCOPE } from "../lib/contract/bin-routing";
import { addDays, todayIn } from "../lib/contract/dates";
import { duckDbOptions, loadDuckDbConfig } from "../service/config";
import { Database } from "../service/db";
import { DEMO_DATASET as DEMO, generate } from "../service/data/generator";
import { migrate } from "../service/data/schema";
import { importRoutingEvidenceCase } from "../service/data/routing-evidence-case";
import { DEMO_ROUTING_HISTORY, demoSafetyEnv, ensureDemoClients, manualCheckLines, seedDemoRoutingHistory, type DemoClients } from "./demo-setup";
import { importChargebackBreach } from "../service/testing/monitor-breach";
import { DEMO_USERS_FILE, ensureDemoUsers, type DemoUser } from "../lib/features/users/demo";
import { DEFAULT_MONITOR_CONFIG } from "../lib/features/monitor/definitions";
import { DEFAULT_SINK_DIR, startMailSink, type MailSink } from "../lib/core/mail/sink";
import { chromiumPath } from "../lib/core/pdf/chromium";

const SERVICE_PORT = Number(process.env.SERVICE_PORT ?? 4000);
const DASHBOARD_PORT = Number(process.env.PORT ?? 3000);
const DB_PATH = process.env.SERVICE_DB ?? "data/service.duckdb";
const SECRETS_FILE = ".local/demo-secrets.json";

interface DemoSecrets extends DemoClients {
  serviceTokenSecret: string;
  nextauthSecret?: string;
}

function loadSecrets(): DemoSecrets {
  if (existsSync(SECRETS_FILE)) return JSON.parse(readFileSync(SECRETS_FILE, "utf8")) as DemoSecrets;
  return { serviceTokenSecret: randomBytes(32).toString("base64url"), nextauthSecret: randomBytes(32).toString("base64url") };
}
function saveSecrets(s: DemoSecrets): void {
  mkdirSync(".local", { recursive: true });
  writeFileSync(SECRETS_FILE, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
}

const CLIENT_WORDS: Readonly<Record<keyof DemoClients, string>> = {
  client: "demo API client (the dashboard's)",
  routingClient: `demo routing client (scope ${ROUTING_ADMIN_SCOPE})`,
  manualClient: "API client for manual checks",
};

async function prepareData(secrets: DemoSecrets): Promise<void> {
  mkdirSync("data", { recursive: true });
  const db = await Database.open(DB_PATH, { connections: 2, ...duckDbOptions(loadDuckDbConfig()) });
  try {
    await migrate(db);
    const today = todayIn("UTC");
    const info = await db.all<{ value: string }>("SELECT value FROM dataset_info WHERE key = 'end_date'");
    const end = info[0]?.value;
    // Demo data ends today so "last 7 days" shows something; regenerate when a new day has begun.
    if (end !== today) {
      console.log(`start: generating demo data (${DEMO.days} days ending ${today})…`);
      const s = await generate(db, { ...DEMO, endDate: today });
      // Two BINs where one MID is truly better, and where MIDs differ only by noise, so the routing
      // workspace has a proposal to show and a case it rightly leaves alone.
      const evidence = await importRoutingEvidenceCase(db);
      console.log(`start: routing evidence case: BIN ${evidence.better_bin} (MID ${evidence.better_gateway_id} truly better than ${evidence.current_gateway_id}), BIN ${evidence.noise_bin} (noise only)`);
      console.log(`start: ${s.attempts.toLocaleString("en-US")} attempts in ${s.seconds.toFixed(1)} s`);
      // The generated MIDs stay well inside every programme: one of them is made to breach
      // Mastercard's Excessive Chargeback Program last month, above its minimum count too, so the
      // Monitor shows a new user what a breach looks like.
      const lastMonth = addDays(`${today.slice(0, 7)}-01`, -1).slice(0, 7);
      const ecp = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === "mastercard-ecp")!;
      const excessive = ecp.thresholds.find((t) => t.level === "excessive")!;
      const { plan } = await importChargebackBreach(db, { month: lastMonth, cardBrand: ecp.cardBrand, ratio: excessive.ratio, minCount: excessive.minCount });
      console.log(`start: demo breach: ${plan.added} chargebacks imported for Mastercard MID #${plan.gatewayId} in ${lastMonth} (${plan.total} ÷ ${plan.sales} sales of ${plan.salesMonth})`);
    }
    // The demo routing configuration, with an older version before it so that "measured after" has
    // a change to measure from the first day (once per database: a history is kept as it is).
    const versions = await seedDemoRoutingHistory(db, today);
    if (versions.length > 0) console.log(`start: demo routing history: versions ${versions.join(", ")}, applied ${DEMO_ROUTING_HISTORY.olderDaysAgo} and ${DEMO_ROUTING_HISTORY.currentDaysAgo} days ago`);
    const created = await ensureDemoClients(db, secrets);
    if (created.length > 0) saveSecrets(secrets);
    for (const key of created) console.log(`start: created ${CLIENT_WORDS[key]} ${secrets[key]!.client_id}`);
  } finally {
    db.close();
  }
}

function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = () => {
      fetch(url)
        .then((r) => (r.ok ? resolve() : retry()))
        .catch(retry);
    };
    const retry = () => (Date.now() > deadline ? reject(new Error(`${url} did not come up`)) : setTimeout(tick, 250));
    tick();
  });
}

const NEXT_BIN = "node_modules/next/dist/bin/next";
/** Everything this launcher started, stopped together. */
const children: ChildProcess[] = [];

/**
 * The dashboard's first build, started at once: it needs neither the data nor the service, so on a
 * fresh clone it runs while the demo data is generated instead of after it.
 */
function buildDashboard(): Promise<number> {
  if (existsSync(".next/BUILD_ID") && process.env.REBUILD !== "1") return Promise.resolve(0);
  console.log("start: building the dashboard (first run only; the data is prepared meanwhile)…");
  const build = spawn(process.execPath, [NEXT_BIN, "build"], { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, DASHBOARD_BUILD_TYPECHECKED: "1" } });
  children.push(build);
  return new Promise((resolve) => build.on("exit", (code) => resolve(code ?? 1)));
}

async function main(): Promise<void> {
  const started = Date.now();
  const secrets = loadSecrets();
  secrets.nextauthSecret ??= randomBytes(32).toString("base64url");
  saveSecrets(secrets);
  const built = buildDashboard();
  await prepareData(secrets);
  const client = secrets.client!;
  const manual = secrets.manualClient!;
  // Mail: the user's own server when SMTP_HOST is set (passed through with the rest of the
  // environment), else the sink on 127.0.0.1 (2525, or a free port when that is taken).
  let sink: MailSink | undefined;
  if (!process.env.SMTP_HOST?.trim()) {
    sink = await startMailSink({
      onMessage: (m) => console.log(`start: mail to ${m.to.join(", ")} kept in ${m.file}`),
    });
  }
  const mailEnv = sink
    ? // MAIL_SINK_DIR: admins read what the sink kept at /mail (lib/core/mail/sink-viewer.ts). SMTP_USER and
      // SMTP_PASSWORD: the sign-in the sink generated, given to the dashboard (and worker) only, so no
      // other local process can put mail in the admins' /mail.
      { SMTP_HOST: sink.host, SMTP_PORT: String(sink.port), SMTP_TLS: "none", SMTP_USER: sink.auth.user, SMTP_PASSWORD: sink.auth.pass, MAIL_FROM: "alerts@demo.local", MAIL_SINK_DIR: resolve(sink.dir) }
    : {};
  const separateWorker = Boolean(process.env.DATABASE_URL?.trim()) && process.env.SEPARATE_WORKER !== "false";
  // PDF downloads and attachments are printed by the system Chromium; without it they are refused with this reason.
  const chromium = chromiumPath();
  if (!existsSync(chromium)) console.log(`start: PDF downloads and PDF attachments are off: no Chromium at ${chromium} (as root: apt-get install chromium-headless-shell, or set CHROMIUM_PATH)`);
  const dashboardEnv = {
    NEXTAUTH_SECRET: secrets.nextauthSecret,
    NEXTAUTH_URL: `http://localhost:${DASHBOARD_PORT}`,
    DASHBOARD_DB: process.env.DASHBOARD_DB ?? "data/dashboard",
    UPSTREAM_BASE_URL: `http://127.0.0.1:${SERVICE_PORT}`,
    UPSTREAM_TOKEN_URL: `http://127.0.0.1:${SERVICE_PORT}/api/auth/token`,
    UPSTREAM_CLIENT_ID: client.client_id,
    UPSTREAM_CLIENT_SECRET: client.client_secret,
    UPSTREAM_ROUTING_CLIENT_ID: secrets.routingClient!.client_id,
    UPSTREAM_ROUTING_CLIENT_SECRET: secrets.routingClient!.client_secret,
    // The two-person rule on, no proxy trusted (./demo-setup.ts).
    ...demoSafetyEnv(process.env),
    ...(separateWorker ? { SEPARATE_WORKER: "true" } : {}),
    ...mailEnv,
  };
  const newUsers: DemoUser[] = await ensureDemoUsers({ env: { ...process.env, ...dashboardEnv } });

  const stopAll = () => {
    for (const c of children) c.kill("SIGTERM");
    void sink?.close();
  };
  process.on("SIGINT", stopAll);
  process.on("SIGTERM", stopAll);

  const serviceUrl = `http://127.0.0.1:${SERVICE_PORT}`;
  const service = spawn(process.execPath, ["--import", "tsx", "service/main.ts"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      SERVICE_DB: DB_PATH,
      SERVICE_PORT: String(SERVICE_PORT),
      SERVICE_TOKEN_SECRET: secrets.serviceTokenSecret,
      SERVICE_LOG: process.env.SERVICE_LOG ?? "silent",
    },
  });
  children.push(service);
  service.on("exit", (code) => {
    console.log(`start: service exited (${code ?? "signal"})`);
    stopAll();
    process.exit(code ?? 0);
  });
  await waitForHealth(`${serviceUrl}/healthz`, 60_000);

  const buildStatus = await built;
  if (buildStatus !== 0) {
    stopAll();
    process.exit(buildStatus);
  }
  const dashboard = spawn(process.execPath, [NEXT_BIN, "start", "--port", String(DASHBOARD_PORT), "--hostname", "localhost"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ...dashboardEnv },
  });
  children.push(dashboard);
  dashboard.on("exit", (code) => {
    stopAll();
    process.exit(code ?? 0);
  });

  if (separateWorker) {
    const worker = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/worker.ts"], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, ...dashboardEnv },
    });
    children.push(worker);
    worker.on("exit", (code) => {
      console.log(`start: worker exited (${code ?? "signal"})`);
      stopAll();
      process.exit(code ?? 0);
    });
  }

  await waitForHealth(`http://localhost:${DASHBOARD_PORT}/api/health`, 120_000);
  const users = JSON.parse(readFileSync(DEMO_USERS_FILE, "utf8")) as DemoUser[];
  console.log(`
  Dashboard  http://localhost:${DASHBOARD_PORT}    sign in as (demo mode; passwords kept in ${DEMO_USERS_FILE}):
${users.map((u) => `    ${u.role.padEnd(8)} ${u.email.padEnd(22)} ${u.password}${newUsers.some((n) => n.email === u.email) ? "   (new)" : ""}`).join("\n")}

  Service    ${serviceUrl}   (OpenAPI: ${serviceUrl}/openapi.json)

  Worker     ${separateWorker ? "alerts, scheduled reports and mail run in their own process (scripts/worker.ts)" : "alerts, scheduled reports and mail run inside the dashboard (the embedded store opens in one process)"}

  Mail       ${sink ? `every message is kept in ${DEFAULT_SINK_DIR}/ (a local SMTP sink; set SMTP_HOST to send for real)` : `sent through ${process.env.SMTP_HOST}:${process.env.SMTP_PORT ?? "587"}`}

  Routing    ${dashboardEnv.ROUTING_TWO_PERSON === "true" ? "a change on the Routing page applies once a second editor approves it (ROUTING_TWO_PERSON=true): sign in as the other admin to approve" : "a change on the Routing page applies at once (ROUTING_TWO_PERSON=false)"}

  Check a number by hand with the client for manual checks (${manual.client_id}; its secret is in ${SECRETS_FILE}),
  not the dashboard's: its calls count against its own limit, never the dashboard's reports'.
${manualCheckLines(serviceUrl, manual.client_id, SECRETS_FILE, todayIn("UTC"))
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n")}

  Ready in ${((Date.now() - started) / 1000).toFixed(1)} s. Ctrl-C stops everything.
`);
}

main().catch((e: unknown) => {
  for (const c of children) c.kill("SIGTERM");
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
