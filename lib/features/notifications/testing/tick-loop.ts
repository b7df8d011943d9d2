// One dashboard instance's scheduler, for lib/features/notifications/postgres.test.ts: opens the store on
// DATABASE_URL (creating nothing there), ticks a Scheduler over a fixed item list for a while, and
// appends one line per run to a shared file. Run it as
//   node --conditions=react-server --import tsx lib/features/notifications/testing/tick-loop.ts \
//     --worker ID --out FILE --items JSON --now ISO [--start-at EPOCH_MS] [--for MS] [--every MS]
// (react-server: scheduler.ts is marked server-only). Prints {"worker","ticks","ran"} on exit.
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { openStore } from "@/lib/core/store/open";
import { Scheduler, type ScheduledItem } from "../scheduler";
import { ScheduleSpec } from "../spec";

const { values } = parseArgs({
  options: {
    worker: { type: "string" },
    out: { type: "string" },
    items: { type: "string" },
    now: { type: "string" },
    "start-at": { type: "string" },
    for: { type: "string", default: "3000" },
    every: { type: "string", default: "50" },
  },
});

const url = process.env.DATABASE_URL;
if (!url || !values.worker || !values.out || !values.items || !values.now) {
  console.error("tick-loop: DATABASE_URL, --worker, --out, --items and --now are required");
  process.exit(2);
}
const worker = values.worker;
const out = values.out;
const now = new Date(values.now);
const items: ScheduledItem[] = (JSON.parse(values.items) as (Omit<ScheduledItem, "notBefore" | "spec"> & { notBefore: string; spec: unknown })[]).map(
  (i) => ({ ...i, spec: ScheduleSpec.parse(i.spec), notBefore: new Date(i.notBefore) }),
);

const store = await openStore({ kind: "postgres", url }, { owner: worker });
const scheduler = new Scheduler({
  db: store,
  workerId: worker,
  timeZone: "UTC",
  now: () => now,
  items: async () => items,
  run: async (item, slot, { late }) => {
    await new Promise((r) => setTimeout(r, 20)); // a run takes a moment, as a send would
    appendFileSync(out, `${worker} ${item.kind} ${item.id} ${slot.toISOString()} ${late ? "late" : "on-time"}\n`);
  },
  log: (line) => console.error(line),
});

// Both instances start ticking at the same moment, so their first ticks race.
const startAt = Number(values["start-at"] ?? Date.now());
if (startAt > Date.now()) await new Promise((r) => setTimeout(r, startAt - Date.now()));
const until = Date.now() + Number(values.for);
let ticks = 0;
let ran = 0;
while (Date.now() < until) {
  ran += (await scheduler.tick()).length;
  ticks++;
  await new Promise((r) => setTimeout(r, Number(values.every)));
}
await scheduler.stop();
await store.close();
process.stdout.write(`${JSON.stringify({ worker, ticks, ran })}\n`);
