/** An alert's e-mail on a rate still maturing over its window says so, with the reason; a complete one does not. */
import { describe, expect, it } from "vitest";
import { AlertDefinition } from "@/lib/features/notifications/definition";
import type { Reading } from "@/lib/features/notifications/evaluate";
import { composeAlert } from "@/lib/features/notifications/alert-evaluation";

const reading = (id: string, label: string, end: string): Reading => ({
  measure: { id, label, format: "percent" },
  window: { start: "2026-06-24", end },
  previousWindow: null,
  groups: [{ key: "all", label: "All", value: 0.02, numerator: 2, denominator: 100, previous: null, fires: true }],
});
const def = (measure: string) => AlertDefinition.parse({ target: { kind: "measure", measure }, condition: { kind: "above", value: 0.01 }, group_by: null, window: "last7" });

describe("an alert on a maturing rate", () => {
  it("says the rate is still maturing over a recent window, and nothing for an event-dated rate", () => {
    const mail = composeAlert({ name: "CB rate" }, def("cb_rate_count"), reading("cb_rate_count", "Chargeback rate (count)", "2026-06-30"), [{ key: "all", kind: "fired" }], false, "2026-06-30");
    expect(mail.body).toMatch(/Chargeback rate \(count\) is still maturing: Chargebacks on sales this recent are still arriving/);
    const complete = composeAlert({ name: "CB rate" }, def("cb_rate_count_by_cb_date"), reading("cb_rate_count_by_cb_date", "Chargeback rate (count, by CB date)", "2026-06-30"), [{ key: "all", kind: "fired" }], false, "2026-06-30");
    expect(complete.body).not.toMatch(/maturing/);
  });
});
