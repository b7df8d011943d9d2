// One dashboard process's alerts and scheduled reports, for lib/features/notifications/processes.test.ts: the real
// wiring of lib/features/notifications/slots.ts (store, gateway and mail settings from the validated environment:
// DATABASE_URL, UPSTREAM_*, SMTP_*, MAIL_FROM), but ticking the Scheduler and the MailWorker every
// --every ms for --for ms instead of on their 30 s and 10 s timers, then exiting. Run it as
//   node --conditions=react-server --import tsx lib/features/notifications/testing/run-scheduler.ts \
//     --worker ID [--start-at EPOCH_MS] [--for MS] [--every MS]
// (react-server: the modules are marked server-only). Prints {"worker","ticks","ran","sent"} on exit.
import { parseArgs } from "node:util";
import { serverEnv } from "@/lib/core/env/env";
import { MailWorker } from "@/lib/core/mail/worker";
import { mailConfigFrom } from "@/lib/core/mail/transport";
import { Scheduler, type SlotRun } from "@/lib/features/notifications/scheduler";
import { getStore } from "@/lib/core/store";
import { getGateway } from "@/lib/core/upstream";
import { mailQueue } from "../mail-queue";
import { runSlot, scheduledItems, type NotifyDeps } from "../slots";

const { values } = parseArgs({
  options: {
    worker: { type: "string" },
    "start-at": { type: "string" },
    for: { type: "string", default: "8000" },
    every: { type: "string", default: "100" },
  },
});
if (!values.worker) {
  console.error("run-scheduler: --worker is required");
  process.exit(2);
}
const workerId = values.worker;
const log = (line: string) => console.error(line);

const env = serverEnv();
const db = await getStore();
const config = mailConfigFrom(env);
const deps: NotifyDeps = { db, gateway: getGateway(), env, mail: mailQueue(config.enabled), waitMs: 20_000 };
const scheduler = new Scheduler({
  db,
  workerId,
  timeZone: env.REPORT_TIMEZONE,
  items: () => scheduledItems(db),
  run: (item, slot, ctx) => runSlot(deps, item, ctx.late, slot),
  log,
});
const worker = new MailWorker({ db, config, workerId, log, ...(env.SMTP_PASSWORD ? { password: env.SMTP_PASSWORD } : {}) });

// The processes start ticking at the same moment, so their first ticks race.
const startAt = Number(values["start-at"] ?? Date.now());
if (startAt > Date.now()) await new Promise((r) => setTimeout(r, startAt - Date.now()));
const until = Date.now() + Number(values.for);
const every = Number(values.every);
let ticks = 0;
const ran: SlotRun[] = [];
let sent = 0;

const schedulerLoop = async () => {
  while (Date.now() < until) {
    ran.push(...(await scheduler.tick()));
    ticks++;
    await new Promise((r) => setTimeout(r, every));
  }
};
const mailLoop = async () => {
  while (Date.now() < until) {
    sent += (await worker.tick()).sent;
    await new Promise((r) => setTimeout(r, every));
  }
};
await Promise.all([schedulerLoop(), mailLoop()]);
await scheduler.stop();
// What this process queued in its last moments is sent before it goes (as a worker that keeps running would).
sent += (await worker.tick()).sent;
await worker.stop();
await db.close();
// The gateway's timers would keep the process up; it is done.
process.stdout.write(`${JSON.stringify({ worker: workerId, ticks, ran, sent })}\n`, () => process.exit(0));
