// The scheduler and its claims over a real PGlite store (migrations applied on open), with an
// injected clock for slots; leases run on the store's clock, so the takeover test waits ~1 s.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { claimsRepo } from "./claims";
import { Scheduler, tickPattern, type ScheduledItem, type SchedulerOptions } from "./scheduler";
import type { ScheduleSpec } from "./spec";

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedule-"));
  store = await openTestPglite(dir, "schedule test");
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DAILY_8: ScheduleSpec = { every: "day", hour: 8 };

function item(over: Partial<ScheduledItem> = {}): ScheduledItem {
  return { kind: "alert", id: randomUUID(), spec: DAILY_8, notBefore: new Date("2026-01-01T00:00:00Z"), paused: false, ...over };
}

/** A scheduler over `items` whose runs are recorded, on a clock the test moves. */
function harness(items: ScheduledItem[], over: Partial<SchedulerOptions> = {}) {
  const clock = { now: new Date("2026-06-10T08:00:10Z") };
  const runs: { worker: string; id: string; slot: string; late: boolean }[] = [];
  const logs: string[] = [];
  const make = (workerId: string, extra: Partial<SchedulerOptions> = {}) =>
    new Scheduler({
      db: store,
      workerId,
      timeZone: "UTC",
      items: async () => items,
      run: async (it, slot, { late }) => {
        await sleep(5); // long enough for racing ticks to interleave
        runs.push({ worker: workerId, id: it.id, slot: slot.toISOString(), late });
      },
      log: (line) => logs.push(line),
      now: () => clock.now,
      ...over,
      ...extra,
    });
  return { clock, runs, logs, make };
}

describe("claims", () => {
  it("lets exactly one of several racing workers take a slot; only the holder renews and completes it", async () => {
    const claims = claimsRepo(store);
    const id = randomUUID();
    const slot = new Date("2026-06-10T08:00:00Z");
    const won = await Promise.all([1, 2, 3, 4, 5].map((w) => claims.claim("alert", id, slot, `w${w}`, 60, false)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const holder = `w${won.indexOf(true) + 1}`;
    const other = holder === "w1" ? "w2" : "w1";

    expect(await claims.claim("alert", id, slot, holder, 60, false)).toBe(false); // held, even by itself
    expect(await claims.renew("alert", id, slot, other, 60)).toBe(false);
    expect(await claims.renew("alert", id, slot, holder, 60)).toBe(true);
    expect(await claims.complete("alert", id, slot, other)).toBe(false);
    expect(await claims.complete("alert", id, slot, holder, "x".repeat(5000))).toBe(true);
    expect(await claims.complete("alert", id, slot, holder)).toBe(false); // once
    expect(await claims.renew("alert", id, slot, holder, 60)).toBe(false);

    const [claim] = await claims.history("alert", id, 10);
    expect(claim).toMatchObject({ kind: "alert", itemId: id, slot, claimedBy: holder, late: false });
    expect(claim?.doneAt).toBeInstanceOf(Date);
    expect(claim?.error).toHaveLength(1000);
    // The same item id under the other kind is another slot.
    expect(await claims.claim("subscription", id, slot, other, 60, true)).toBe(true);
    expect(await claims.get("subscription", id, slot)).toMatchObject({ claimedBy: other, late: true, doneAt: null });
  });

  it("lets a worker take over a slot whose holder's lease ran out unfinished, never a done one", async () => {
    const claims = claimsRepo(store);
    const id = randomUUID();
    const slot = new Date("2026-06-10T08:00:00Z");
    const done = new Date("2026-06-09T08:00:00Z");
    expect(await claims.claim("alert", id, done, "old", 0.2, false)).toBe(true);
    expect(await claims.complete("alert", id, done, "old")).toBe(true);
    expect(await claims.claim("alert", id, slot, "dead", 0.2, true)).toBe(true);
    await sleep(400);
    const won = await Promise.all(["a", "b", "c"].map((w) => claims.claim("alert", id, slot, w, 60, false)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await claims.complete("alert", id, slot, "dead")).toBe(false); // no longer the holder
    expect(await claims.claim("alert", id, done, "a", 60, false)).toBe(false);

    expect(await claims.lastSlot("alert", id)).toEqual(slot);
    const history = await claims.history("alert", id, 10);
    expect(history.map((c) => c.slot)).toEqual([slot, done]);
    expect(history[0]).toMatchObject({ late: true, doneAt: null }); // stays late once it was
    expect(await claims.lastSlot("alert", randomUUID())).toBeNull();
    expect(await claims.history("alert", "not-a-uuid", 10)).toEqual([]);
    await expect(claims.claim("alert", "not-a-uuid", slot, "a", 60, false)).rejects.toThrow(/not a uuid/);
  });
});

describe("Scheduler.tick", () => {
  it("runs a due slot once, with five concurrent ticks on each of two schedulers sharing the store", async () => {
    const items = [item(), item({ kind: "subscription", spec: { every: "hour", minute: 0 } })];
    const { runs, make } = harness(items);
    const a = make("worker-a");
    const b = make("worker-b");
    const results = await Promise.all([...Array.from({ length: 5 }, () => a.tick()), ...Array.from({ length: 5 }, () => b.tick())]);
    expect(runs.map((r) => r.id).sort()).toEqual(items.map((i) => i.id).sort());
    expect(runs.every((r) => r.slot === "2026-06-10T08:00:00.000Z" && !r.late)).toBe(true);
    // What the ticks say they ran is what ran.
    expect(results.flat().map((r) => r.id).sort()).toEqual(items.map((i) => i.id).sort());
    // Later ticks, by either, find the slots done.
    expect([...(await a.tick()), ...(await b.tick())]).toEqual([]);
    expect(runs).toHaveLength(2);
  });

  it("runs the latest of the slots missed over 3 days once, marked late", async () => {
    const it1 = item();
    const { clock, runs, make } = harness([it1]);
    const a = make("worker-a");
    expect(await a.tick()).toMatchObject([{ id: it1.id, slot: new Date("2026-06-10T08:00:00Z"), late: false, error: null }]);
    // Down from just after that until the 13th at noon: the slots of the 11th, 12th and 13th were missed.
    clock.now = new Date("2026-06-13T12:00:00Z");
    const b = make("worker-b"); // another process after the restart
    expect(await b.tick()).toMatchObject([{ id: it1.id, slot: new Date("2026-06-13T08:00:00Z"), late: true }]);
    expect(await b.tick()).toEqual([]);
    expect(runs.map((r) => [r.slot, r.late])).toEqual([
      ["2026-06-10T08:00:00.000Z", false],
      ["2026-06-13T08:00:00.000Z", true],
    ]);
    const history = await claimsRepo(store).history("alert", it1.id, 10);
    expect(history.map((c) => [c.slot.toISOString(), c.late, c.doneAt !== null])).toEqual([
      ["2026-06-13T08:00:00.000Z", true, true],
      ["2026-06-10T08:00:00.000Z", false, true],
    ]);
  });

  it("lets another worker take over a slot claimed by one that died before running it, once the lease has run out", async () => {
    const it1 = item();
    const { runs, make } = harness([it1], { leaseSeconds: 1 });
    const slot = new Date("2026-06-10T08:00:00Z");
    // The dead worker claimed the slot and died: its run never happened, its claim never completed.
    expect(await claimsRepo(store).claim("alert", it1.id, slot, "dead-worker", 1, false)).toBe(true);
    const b = make("worker-b");
    const c = make("worker-c");
    expect(await b.tick()).toEqual([]); // still leased to the dead one
    expect(runs).toEqual([]);
    await sleep(1300);
    await Promise.all([b.tick(), c.tick(), b.tick(), c.tick()]);
    expect(await b.tick()).toEqual([]);
    expect(await c.tick()).toEqual([]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: it1.id, slot: slot.toISOString() });
    expect(await claimsRepo(store).get("alert", it1.id, slot)).toMatchObject({ claimedBy: runs[0]?.worker, error: null });
    expect((await claimsRepo(store).get("alert", it1.id, slot))?.doneAt).toBeInstanceOf(Date);
  });

  it("never runs a paused item, nor a slot from before the item existed", async () => {
    const paused = item({ paused: true });
    const fresh = item({ notBefore: new Date("2026-06-10T09:00:00Z") }); // made after today's 08:00
    const { clock, runs, make } = harness([paused, fresh]);
    const a = make("worker-a");
    clock.now = new Date("2026-06-10T10:00:00Z");
    expect(await a.tick()).toEqual([]);
    clock.now = new Date("2026-06-11T08:00:30Z");
    expect(await a.tick()).toMatchObject([{ id: fresh.id, slot: new Date("2026-06-11T08:00:00Z"), late: false }]);
    expect(runs.map((r) => r.id)).toEqual([fresh.id]);
    expect(await claimsRepo(store).lastSlot("alert", paused.id)).toBeNull();
  });

  it("records a run's error on its slot, does not retry that slot, and runs the next one", async () => {
    const it1 = item({ spec: { every: "hour", minute: 30 } });
    let calls = 0;
    const { clock, logs, make } = harness([it1], {
      run: async () => {
        calls++;
        if (calls === 1) throw new Error("smtp://mailer:hunter2@mail.example.com refused");
      },
    });
    const a = make("worker-a");
    clock.now = new Date("2026-06-10T10:40:00Z"); // 10 minutes after the slot: late only after 5 minutes
    expect(await a.tick()).toMatchObject([{ id: it1.id, slot: new Date("2026-06-10T10:30:00Z"), late: true }]);
    const [failed] = await claimsRepo(store).history("alert", it1.id, 1);
    expect(failed?.error).toMatch(/refused/);
    expect(failed?.error).not.toContain("hunter2");
    expect(failed?.doneAt).toBeInstanceOf(Date);
    expect(await a.tick()).toEqual([]);
    expect(calls).toBe(1);
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!)).toMatchObject({ level: "error", msg: "scheduled run failed", kind: "alert", id: it1.id, slot: "2026-06-10T10:30:00.000Z" });
    expect(logs[0]).not.toContain("hunter2");

    clock.now = new Date("2026-06-10T11:30:01Z");
    expect(await a.tick()).toMatchObject([{ slot: new Date("2026-06-10T11:30:00Z"), late: false, error: null }]);
    expect(calls).toBe(2);
  });

  it("logs and carries on when the items cannot be listed or an item's schedule is broken", async () => {
    const good = item();
    const logs: string[] = [];
    let ran = 0;
    const failing = new Scheduler({
      db: store, workerId: "w", timeZone: "UTC", now: () => new Date("2026-06-10T08:01:00Z"),
      items: async () => {
        throw new Error("store gone");
      },
      run: async () => undefined,
      log: (l) => logs.push(l),
    });
    expect(await failing.tick()).toEqual([]);
    const broken = new Scheduler({
      db: store, workerId: "w", timeZone: "UTC", now: () => new Date("2026-06-10T08:01:00Z"),
      items: async () => [item({ spec: { every: "day", hour: 99 } }), item({ id: "not-a-uuid" }), good],
      run: async () => void ran++,
      log: (l) => logs.push(l),
    });
    expect(await broken.tick()).toMatchObject([{ id: good.id }]);
    expect(ran).toBe(1);
    expect(logs.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      "scheduler could not list its items",
      "scheduler could not schedule an item",
      "scheduler could not schedule an item",
    ]);
  });

  it("ticks on the seconds of the minute its interval divides, and refuses one that does not divide 60", () => {
    expect(tickPattern(30)).toBe("*/30 * * * * *");
    expect(tickPattern(1)).toBe("*/1 * * * * *");
    expect(tickPattern(60)).toBe("0 * * * * *");
    for (const bad of [0, 7, 2.5, 120]) expect(() => tickPattern(bad), String(bad)).toThrow(RangeError);
    const { make } = harness([]);
    expect(() => make("worker-a", { tickSeconds: 45 })).toThrow(/tickSeconds must divide 60, not 45/);
  });

  it("starts a timer that does not keep the process alive, and stops it", async () => {
    const { make } = harness([]);
    const a = make("worker-a");
    a.start();
    a.start(); // once
    await a.stop();
    await a.stop();
  });
});
