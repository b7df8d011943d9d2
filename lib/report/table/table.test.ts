import { describe, expect, it } from "vitest";
import { ALL_ROWS_COLUMN, tableColumns } from "./table";
import { nextSort } from "./sort";

describe("nextSort", () => {
  const model = { columns: tableColumns({ op: "orders", groupBy: ["card_brand"], measures: ["revenue", "approval_rate"] }) };

  it("starts a dimension A to Z and a number largest first", () => {
    expect(nextSort(model, null, "card_brand")).toEqual({ key: "card_brand", dir: "asc" });
    expect(nextSort(model, null, "revenue")).toEqual({ key: "revenue", dir: "desc" });
    expect(nextSort(model, { key: "revenue", dir: "desc" }, "approval_rate")).toEqual({ key: "approval_rate", dir: "desc" });
  });

  it("turns the sorted column around, each way", () => {
    expect(nextSort(model, { key: "revenue", dir: "desc" }, "revenue")).toEqual({ key: "revenue", dir: "asc" });
    expect(nextSort(model, { key: "card_brand", dir: "asc" }, "card_brand")).toEqual({ key: "card_brand", dir: "desc" });
  });

  it("reads the one row of an ungrouped report as a dimension", () => {
    const ungrouped = { columns: tableColumns({ op: "orders", groupBy: [], measures: ["revenue"] }) };
    expect(nextSort(ungrouped, null, ALL_ROWS_COLUMN)).toEqual({ key: ALL_ROWS_COLUMN, dir: "asc" });
  });
});
