// A metric's fact table and date come from the catalog alone: the SQL map follows it.
import { describe, expect, it } from "vitest";
import { METRICS } from "@/lib/contract/catalog";
import { METRIC_COLUMNS } from "./columns";

describe("the metric columns", () => {
  it("read each metric's source and date basis from the catalog", () => {
    for (const m of METRICS) {
      const c = METRIC_COLUMNS[m.name];
      expect(c.source, m.name).toBe(m.source);
      expect(c.byEventDate, m.name).toBe(m.dateBasis === "chargeback" || m.dateBasis === "refund" || m.dateBasis === "alert");
    }
    expect(Object.keys(METRIC_COLUMNS).sort()).toEqual(METRICS.map((m) => m.name).sort());
  });
});
