import { describe, expect, it } from "vitest";
import { SeenValues } from "./seen-values";

describe("values seen in fetched answers", () => {
  it("collects each bounded dimension an answer holds, with an id's name when the record carries it", () => {
    const seen = new SeenValues();
    seen.add([
      { date: "2025-07-01", gateway_id: 12, gateway_alias: "Chase 12", bank: "CHASE", card_brand: "VISA", revenue: 1 },
      { date: "2025-07-01", gateway_id: 3, gateway_alias: "Wells 3", bank: "WELLS", card_brand: "VISA", revenue: 2 },
      { date: "2025-07-02", gateway_id: 12, gateway_alias: "Chase 12", bank: null, card_brand: "AMEX", revenue: 3 },
    ]);
    expect(seen.values("gateway_id")).toEqual([
      { value: 3, label: "Wells 3" },
      { value: 12, label: "Chase 12" },
    ]);
    expect(seen.values("bank").map((v) => v.value)).toEqual(["CHASE", "WELLS"]);
    // enumerations and dates are not suggested (the form lists them already)
    expect(seen.values("card_brand")).toEqual([]);
    expect(seen.values("date")).toEqual([]);
    // a later answer without the name keeps the name already known
    seen.add([{ gateway_id: 3, revenue: 1 }]);
    expect(seen.values("gateway_id")[0]).toEqual({ value: 3, label: "Wells 3" });
  });

  it("stays bounded, keeping the most recently seen values", () => {
    const seen = new SeenValues(3);
    seen.add([1, 2, 3, 4, 5].map((id) => ({ campaign_id: id })));
    seen.add([{ campaign_id: 1 }]);
    expect(seen.values("campaign_id").map((v) => v.value)).toEqual([1, 4, 5]);
    // Values were dropped: a value missing from the list may still have been in those answers.
    expect(seen.coverage("campaign_id")).toEqual({ reports: 2, complete: false });
  });

  it("counts the answers that held each dimension, and says whether every value they held is kept", () => {
    const seen = new SeenValues(10, 2);
    expect(seen.coverage("gateway_id")).toEqual({ reports: 0, complete: true });
    seen.add([{ gateway_id: 1, bank: "A" }]);
    seen.add([{ gateway_id: 2 }]);
    seen.add([]);
    expect(seen.coverage("gateway_id")).toEqual({ reports: 2, complete: true });
    expect(seen.coverage("bank")).toEqual({ reports: 1, complete: true });
    // More records than are read: the unread ones may hold other values.
    seen.add([{ bank: "B" }, { bank: "C" }, { bank: "D" }]);
    expect(seen.coverage("bank")).toEqual({ reports: 2, complete: false });
  });
});
