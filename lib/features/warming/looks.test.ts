/**
 * What signed-in people looked at recently, on a real PGlite store and a real PostgreSQL server (two
 * connections writing at once): each person's bound holds however many looks arrive together, one
 * person's looks never push out another's, a look seen again moves up, and one dashboard spelled two
 * ways is one look.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usersRepo } from "@/lib/core/auth/users";
import type { Store } from "@/lib/core/store/sql";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { openTestPostgresStores, postgresBinDir } from "@/lib/core/store/testing/postgres";
import { serializeDashboard, starterDashboard } from "@/lib/report/state/dashboard";
import { LOOKS_PER_PERSON, noteLook, recentLooksRepo, type Look } from "./looks";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const MINUTE = 60_000;
const WARMING = { SHARE_WARM_DAYS: 7, REPORT_TIMEZONE: "UTC" };
const dashboard = (i: number): Look => ({ kind: "dashboard", params: `look-${String(i).padStart(2, "0")}` });

function suite(name: string, open: () => Promise<{ writers: [Store, Store]; close(): Promise<void> }>) {
  describe(name, () => {
    let writers: [Store, Store];
    let close: () => Promise<void>;
    let nth = 0;
    /** A person of their own for each test, so no test sees another's looks. */
    const person = async () => (await usersRepo(writers[0]).create({ email: `looker-${nth++}-${randomUUID()}@test.local`, role: "analyst", passwordHash: "x" })).id;

    beforeAll(async () => {
      ({ writers, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    it(`keeps each person's ${LOOKS_PER_PERSON} most recent looks when 40 arrive at once on two connections, and another person's look beside them`, async () => {
      const [alice, bob] = [await person(), await person()];
      await Promise.all([
        ...Array.from({ length: 40 }, (_, i) => recentLooksRepo(writers[i % 2]!).note(alice, dashboard(i), new Date(T0 + i * MINUTE))),
        recentLooksRepo(writers[1]).note(bob, dashboard(0), new Date(T0)),
      ]);
      const looks = recentLooksRepo(writers[0]);
      expect(await looks.of(alice)).toEqual(Array.from({ length: LOOKS_PER_PERSON }, (_, i) => dashboard(39 - i)));
      expect(await looks.of(bob)).toEqual([dashboard(0)]);
    });

    it("moves a look seen again to the front, writing it at most once a quarter of an hour", async () => {
      const carol = await person();
      const looks = recentLooksRepo(writers[0]);
      await looks.note(carol, dashboard(1), new Date(T0));
      await looks.note(carol, dashboard(2), new Date(T0 + MINUTE));
      await looks.note(carol, dashboard(1), new Date(T0 + 2 * MINUTE)); // a page polling: not rewritten
      expect(await looks.of(carol)).toEqual([dashboard(2), dashboard(1)]);
      await looks.note(carol, dashboard(1), new Date(T0 + 16 * MINUTE));
      expect(await looks.of(carol)).toEqual([dashboard(1), dashboard(2)]);
    });

    it("lists everyone's looks used since a time once each, the most recent first", async () => {
      const [dan, erin] = [await person(), await person()];
      const looks = recentLooksRepo(writers[0]);
      const later = T0 + 365 * 24 * 60 * MINUTE; // after every other test's looks
      await looks.note(dan, dashboard(70), new Date(later - 3 * 24 * 60 * MINUTE));
      await looks.note(dan, dashboard(71), new Date(later));
      await looks.note(erin, dashboard(71), new Date(later - MINUTE));
      await looks.note(erin, { kind: "monitor", params: "" }, new Date(later + MINUTE));
      expect(await looks.usedSince(new Date(later - 24 * 60 * MINUTE))).toEqual([{ kind: "monitor", params: "" }, dashboard(71)]);
    });

    it("notes nothing while nothing is warmed, nor settings it cannot read, and never fails the look", async () => {
      const gil = await person();
      const params = serializeDashboard(starterDashboard());
      await noteLook(writers[0], { ...WARMING, SHARE_WARM_DAYS: 0 }, gil, { kind: "dashboard", params });
      await noteLook(writers[0], WARMING, gil, { kind: "dashboard", params: "range=last14&t=kpi.1" });
      await noteLook(writers[0], WARMING, gil, { kind: "monitor", params: "range=last30" });
      expect(await recentLooksRepo(writers[0]).of(gil)).toEqual([]);
    });

    it("keeps one dashboard spelled two ways as one look, in its canonical spelling", async () => {
      const fay = await person();
      const params = serializeDashboard(starterDashboard());
      const [range, compare, ...tiles] = params.split("&");
      const reordered = [compare, range, ...tiles].join("&"); // the settings before the range: the same dashboard
      expect(reordered).not.toBe(params);
      await noteLook(writers[0], WARMING, fay, { kind: "dashboard", params: reordered });
      await noteLook(writers[1], WARMING, fay, { kind: "dashboard", params });
      expect(await recentLooksRepo(writers[0]).of(fay)).toEqual([{ kind: "dashboard", params }]);
    });
  });
}

suite("recent looks on PGlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "looks-"));
  const store = await openTestPglite(dir, "looks test");
  return {
    writers: [store, store],
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const pgAvailable = process.env.TEST_DATABASE_URL !== undefined || postgresBinDir() !== null;
if (!pgAvailable) console.warn("lib/features/warming/looks.test.ts: no PostgreSQL server installed (apt-get install postgresql); its PostgreSQL suite skipped");
if (pgAvailable) {
  suite("recent looks on PostgreSQL (two instances)", async () => {
    const { stores, close } = await openTestPostgresStores(["a", "b"]);
    return { writers: [stores[0]!, stores[1]!], close };
  });
}
