import { describe, expect, it } from "vitest";
import { ScheduleSpec, cronOf, describeSchedule, latestSlot, nextSlot } from "./spec";

const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();

describe("ScheduleSpec", () => {
  it("accepts the four kinds and rejects values out of range or unknown keys", () => {
    for (const ok of [
      { every: "hour" },
      { every: "hour", minute: 59 },
      { every: "day", hour: 0 },
      { every: "week", weekday: 7, hour: 23 },
      { every: "month", day: 28, hour: 8 },
    ]) {
      expect(ScheduleSpec.safeParse(ok).success, JSON.stringify(ok)).toBe(true);
    }
    for (const bad of [
      { every: "hour", minute: 60 },
      { every: "day", hour: 24 },
      { every: "day" },
      { every: "day", hour: 8.5 },
      { every: "week", weekday: 0, hour: 8 },
      { every: "week", weekday: 8, hour: 8 },
      { every: "month", day: 29, hour: 8 },
      { every: "month", day: 0, hour: 8 },
      { every: "day", hour: 8, minute: 30 },
      { every: "year", hour: 8 },
    ]) {
      expect(ScheduleSpec.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("cronOf", () => {
  it("gives 5-field patterns, ISO weekdays mapped to cron's (Sunday 0)", () => {
    expect(cronOf({ every: "hour" })).toBe("0 * * * *");
    expect(cronOf({ every: "hour", minute: 15 })).toBe("15 * * * *");
    expect(cronOf({ every: "day", hour: 8 })).toBe("0 8 * * *");
    expect(cronOf({ every: "week", weekday: 1, hour: 7 })).toBe("0 7 * * 1");
    expect(cronOf({ every: "week", weekday: 7, hour: 7 })).toBe("0 7 * * 0");
    expect(cronOf({ every: "month", day: 1, hour: 6 })).toBe("0 6 1 * *");
  });

  it("refuses a spec outside the schema", () => {
    expect(() => cronOf({ every: "day", hour: 25 })).toThrow();
  });
});

describe("describeSchedule", () => {
  it("says when, with the time zone", () => {
    expect(describeSchedule({ every: "day", hour: 8 }, "Europe/Berlin")).toBe("Every day at 08:00 (Europe/Berlin)");
    expect(describeSchedule({ every: "hour" }, "UTC")).toBe("Every hour at :00 (UTC)");
    expect(describeSchedule({ every: "hour", minute: 5 }, "UTC")).toBe("Every hour at :05 (UTC)");
    expect(describeSchedule({ every: "week", weekday: 1, hour: 7 }, "UTC")).toBe("Every Monday at 07:00 (UTC)");
    expect(describeSchedule({ every: "week", weekday: 7, hour: 18 }, "UTC")).toBe("Every Sunday at 18:00 (UTC)");
    expect(describeSchedule({ every: "month", day: 1, hour: 6 }, "UTC")).toBe("Every month on the 1st at 06:00 (UTC)");
    expect(describeSchedule({ every: "month", day: 2, hour: 6 }, "UTC")).toBe("Every month on the 2nd at 06:00 (UTC)");
    expect(describeSchedule({ every: "month", day: 3, hour: 6 }, "UTC")).toBe("Every month on the 3rd at 06:00 (UTC)");
    expect(describeSchedule({ every: "month", day: 11, hour: 6 }, "UTC")).toBe("Every month on the 11th at 06:00 (UTC)");
    expect(describeSchedule({ every: "month", day: 22, hour: 6 }, "UTC")).toBe("Every month on the 22nd at 06:00 (UTC)");
  });
});

describe("latestSlot and nextSlot", () => {
  const daily8 = { every: "day", hour: 8 } as const;

  it("find the slot at or before now, and the first one after, in UTC", () => {
    expect(iso(latestSlot(daily8, at("2026-06-10T12:00:00Z"), "UTC"))).toBe("2026-06-10T08:00:00.000Z");
    expect(iso(latestSlot(daily8, at("2026-06-10T07:59:59.999Z"), "UTC"))).toBe("2026-06-09T08:00:00.000Z");
    // A slot exactly at now is the latest; the next one is strictly after.
    expect(iso(latestSlot(daily8, at("2026-06-10T08:00:00.000Z"), "UTC"))).toBe("2026-06-10T08:00:00.000Z");
    expect(iso(nextSlot(daily8, at("2026-06-10T08:00:00.000Z"), "UTC"))).toBe("2026-06-11T08:00:00.000Z");
    expect(iso(nextSlot(daily8, at("2026-06-10T07:59:59.500Z"), "UTC"))).toBe("2026-06-10T08:00:00.000Z");
    expect(iso(nextSlot(daily8, at("2026-06-10T08:00:00.500Z"), "UTC"))).toBe("2026-06-11T08:00:00.000Z");
  });

  it("read the hour in the reporting time zone", () => {
    // Berlin is UTC+2 in summer: 08:00 there is 06:00Z.
    expect(iso(latestSlot(daily8, at("2026-06-10T06:30:00Z"), "Europe/Berlin"))).toBe("2026-06-10T06:00:00.000Z");
    expect(iso(latestSlot(daily8, at("2026-06-10T05:59:00Z"), "Europe/Berlin"))).toBe("2026-06-09T06:00:00.000Z");
    // New York is UTC-5 in winter: 08:00 there is 13:00Z.
    expect(iso(nextSlot(daily8, at("2026-01-15T12:00:00Z"), "America/New_York"))).toBe("2026-01-15T13:00:00.000Z");
    // Kolkata is UTC+5:30: the hourly minute 0 there is :30 in UTC.
    expect(iso(latestSlot({ every: "hour" }, at("2026-06-10T10:45:00Z"), "Asia/Kolkata"))).toBe("2026-06-10T10:30:00.000Z");
  });

  it("count weeks and months in the time zone", () => {
    // 2026-06-08 is a Monday; Monday 07:00 in Berlin is 05:00Z.
    const monday7 = { every: "week", weekday: 1, hour: 7 } as const;
    expect(iso(nextSlot(monday7, at("2026-06-04T00:00:00Z"), "Europe/Berlin"))).toBe("2026-06-08T05:00:00.000Z");
    expect(iso(latestSlot(monday7, at("2026-06-08T04:59:00Z"), "Europe/Berlin"))).toBe("2026-06-01T05:00:00.000Z");
    const sunday = { every: "week", weekday: 7, hour: 0 } as const;
    expect(iso(nextSlot(sunday, at("2026-06-08T00:00:00Z"), "UTC"))).toBe("2026-06-14T00:00:00.000Z");
    // The 1st at 00:00 in Berlin is still the previous month in UTC.
    const first = { every: "month", day: 1, hour: 0 } as const;
    expect(iso(latestSlot(first, at("2026-07-15T00:00:00Z"), "Europe/Berlin"))).toBe("2026-06-30T22:00:00.000Z");
    expect(iso(nextSlot({ every: "month", day: 28, hour: 9 }, at("2026-02-28T09:00:00Z"), "UTC"))).toBe("2026-03-28T09:00:00.000Z");
  });

  it("give a daily 02:00 one slot on Berlin's spring-forward day (when the clock has jumped to 03:00)", () => {
    // 2026-03-29: at 02:00 CET (01:00Z) the clock jumps to 03:00 CEST; 02:00 does not exist.
    const daily2 = { every: "day", hour: 2 } as const;
    const tz = "Europe/Berlin";
    expect(iso(nextSlot(daily2, at("2026-03-28T12:00:00Z"), tz))).toBe("2026-03-29T01:00:00.000Z"); // 03:00 CEST
    expect(iso(nextSlot(daily2, at("2026-03-29T01:00:00Z"), tz))).toBe("2026-03-30T00:00:00.000Z"); // 02:00 CEST
    expect(iso(latestSlot(daily2, at("2026-03-29T12:00:00Z"), tz))).toBe("2026-03-29T01:00:00.000Z");
    expect(iso(latestSlot(daily2, at("2026-03-29T00:59:59Z"), tz))).toBe("2026-03-28T01:00:00.000Z"); // 02:00 CET the day before
    // Walk slot to slot across the change: one slot a day, never two, never none.
    const slots: string[] = [];
    let t = at("2026-03-27T12:00:00Z");
    for (let i = 0; i < 4; i++) slots.push(iso((t = nextSlot(daily2, t, tz))));
    expect(slots).toEqual(["2026-03-28T01:00:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:00:00.000Z", "2026-03-31T00:00:00.000Z"]);
  });

  it("run a daily time that occurs twice on the fall-back day once, at its first occurrence", () => {
    // 2026-10-25: at 03:00 CEST (01:00Z) the clock goes back to 02:00 CET; 02:30 happens twice.
    const tz = "Europe/Berlin";
    const daily = { every: "day", hour: 2 } as const;
    expect(iso(nextSlot(daily, at("2026-10-24T12:00:00Z"), tz))).toBe("2026-10-25T00:00:00.000Z"); // 02:00 CEST
    expect(iso(nextSlot(daily, at("2026-10-25T00:00:00Z"), tz))).toBe("2026-10-26T01:00:00.000Z"); // not 02:00 CET again
    expect(iso(latestSlot(daily, at("2026-10-25T01:30:00Z"), tz))).toBe("2026-10-25T00:00:00.000Z");
    // An hourly schedule has both 02:00s, which are different instants.
    const hourly = { every: "hour" } as const;
    expect(iso(nextSlot(hourly, at("2026-10-25T00:00:00Z"), tz))).toBe("2026-10-25T01:00:00.000Z");
    expect(iso(latestSlot(hourly, at("2026-10-25T01:10:00Z"), tz))).toBe("2026-10-25T01:00:00.000Z");
  });

  it("throw on an unknown time zone", () => {
    expect(() => latestSlot(daily8, new Date(), "Mars/Olympus_Mons")).toThrow();
  });
});
