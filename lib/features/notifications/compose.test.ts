/** An alert e-mail words a change on the previous period as every table does: signed, and judged only between equally mature periods. */
import { describe, expect, it } from "vitest";
import { AlertDefinition } from "./definition";
import type { Reading } from "./evaluate";
import { composeAlert } from "./alert-evaluation";

const MINUS = "\u2212";
const def = (measure: string) =>
  AlertDefinition.parse({ target: { kind: "measure", measure }, condition: { kind: "change", direction: "either", by: "percent", amount: 10 }, group_by: null, window: "last7" });

function reading(id: string, label: string, format: "percent" | "currency", now: number, before: number, end: string): Reading {
  return {
    measure: { id, label, format },
    window: { start: "2026-06-24", end },
    previousWindow: { start: "2026-06-17", end: "2026-06-23" },
    groups: [
      { key: "all", label: "All", value: now, numerator: now, denominator: null, previous: { value: before, numerator: before, denominator: null }, fires: true },
    ],
  };
}

describe("an alert e-mail's change", () => {
  it("carries the sign of a fall in revenue, to the cent, with its verdict", () => {
    const mail = composeAlert({ name: "Revenue" }, def("revenue"), reading("revenue", "Revenue", "currency", 10_000.1, 15_243.85, "2026-06-30"), [{ key: "all", kind: "fired" }], false, "2026-06-30");
    expect(mail.body).toContain(`, change ${MINUS}$5,243.75 (worse), ${MINUS}34.40% (worse) (fired)`);
  });

  it("gives a maturing rate's change its sign and no verdict", () => {
    const r = reading("cb_rate_count", "Chargeback rate (count)", "percent", 0.0056, 0.01, "2026-06-30");
    const mail = composeAlert({ name: "CB rate" }, def("cb_rate_count"), r, [{ key: "all", kind: "fired" }], false, "2026-06-30");
    expect(mail.body).toMatch(new RegExp(`change ${MINUS}0\\.44 pp(?! \\((better|worse)\\))`));
    expect(mail.body).not.toMatch(/\((better|worse)\)/);
  });

  it("says how many of the previous window's days hold data, and gives its change no verdict", () => {
    const r = { ...reading("revenue", "Revenue", "currency", 10_000.1, 15_243.85, "2026-06-30"), previousCoverage: { days: 7, covered: 3 } };
    const mail = composeAlert({ name: "Revenue" }, def("revenue"), r, [{ key: "all", kind: "recovered" }], false, "2026-06-30");
    expect(mail.body).toContain("previous period Revenue $15,243.85 (data on 3 of 7 days)");
    expect(mail.body).toContain("(partly covered)");
    expect(mail.body).not.toMatch(/\((better|worse)\)/);
  });
});
