import { describe, expect, it } from "vitest";
import { printFacts } from "./print-facts";
import type { SharedView } from "./view";

const NOW = new Date("2026-11-02T08:30:00Z");

type Outcome = { status: "done"; stale: boolean } | { status: "pending" } | { status: "failed"; message: string };
const dashboard = (mode: "live" | "snapshot", outcomes: Outcome[]) =>
  ({
    kind: "dashboard",
    title: "Board pack",
    sharedBy: "a colleague at corp.example",
    mode,
    timeZone: "Europe/Berlin",
    rangeLabel: "Last 30 days",
    preset: null,
    allowedPresets: [],
    filters: "none",
    widths: [],
    answer: { asOf: "2026-11-01T06:00:00Z", tiles: outcomes.map((outcome, i) => ({ index: i + 1, title: `Tile ${i + 1}`, outcome })) },
  }) as unknown as SharedView;

describe("printFacts", () => {
  it("prints a dashboard whose every tile is answered, fresh, with the generation time in the reporting timezone", () => {
    const f = printFacts(dashboard("live", [{ status: "done", stale: false }]), "Europe/Berlin", NOW);
    expect(f).toMatchObject({ state: "ready", title: "Board pack", subtitle: "Last 30 days (Europe/Berlin) · Filters: none", generated: "Generated 2026-11-02 09:30:00 Europe/Berlin", snapshot: "" });
  });

  it("says when a live answer's data was fetched (as the e-mail carrying the PDF does), and leaves it to a snapshot's own words", () => {
    expect(printFacts(dashboard("live", [{ status: "done", stale: false }]), "Europe/Berlin", NOW).asOf).toBe("Data as of 2026-11-01 07:00:00 Europe/Berlin");
    expect(printFacts(dashboard("snapshot", [{ status: "done", stale: false }]), "Europe/Berlin", NOW).asOf).toBe("");
  });

  it("does not print a dashboard with a tile still fetching or drawn from an old answer, and names a failed tile", () => {
    expect(printFacts(dashboard("live", [{ status: "done", stale: false }, { status: "pending" }]), "UTC", NOW)).toMatchObject({ state: "pending", retryAfter: 10 });
    expect(printFacts(dashboard("live", [{ status: "done", stale: true }]), "UTC", NOW).state).toBe("pending");
    expect(printFacts(dashboard("live", [{ status: "failed", message: "The service refused the query." }]), "UTC", NOW)).toMatchObject({ state: "refused", reason: "The tile “Tile 1” could not be answered: The service refused the query." });
  });

  it("says when a snapshot was taken", () => {
    expect(printFacts(dashboard("snapshot", [{ status: "done", stale: true }]), "UTC", NOW)).toMatchObject({ state: "ready", snapshot: "Snapshot taken 2026-11-01 07:00:00 Europe/Berlin" });
  });

  it("refuses what the share page refuses, and waits for what it waits for", () => {
    expect(printFacts({ kind: "locked" }, "UTC", NOW)).toMatchObject({ state: "refused", reason: "This link is protected by a password: open it first." });
    expect(printFacts({ kind: "expired" }, "UTC", NOW).state).toBe("refused");
    expect(printFacts({ kind: "pending", title: "R", retryAfterSeconds: 12, rangeLabel: "Last 7 days", checkedAt: NOW.toISOString(), queue: null }, "UTC", NOW)).toMatchObject({ state: "pending", retryAfter: 12 });
  });
});
