import { describe, expect, it } from "vitest";
import { itemNoun, nameKey, sameNamed } from "./names";

describe("names of saved items", () => {
  const mine = [
    { id: "a", name: "Gateways, last 30 days" },
    { id: "b", name: "Rebills  by BANK" },
  ];
  it("are the same once spaces are collapsed and case is ignored", () => {
    expect(nameKey("  Rebills   by bank ")).toBe("rebills by bank");
    expect(sameNamed("rebills by Bank", mine)).toEqual(mine[1]);
    expect(sameNamed("GATEWAYS, LAST 30 DAYS", mine)).toEqual(mine[0]);
  });
  it("differ by any other character, and an empty name matches nothing", () => {
    expect(sameNamed("Gateways, last 30 days (VISA)", mine)).toBeNull();
    expect(sameNamed("Gateways last 30 days", mine)).toBeNull();
    expect(sameNamed("   ", [{ id: "c", name: " " }])).toBeNull();
  });
  it("leave out the item being renamed", () => {
    expect(sameNamed("Rebills by bank", mine, "b")).toBeNull();
    expect(sameNamed("Rebills by bank", mine, "a")).toEqual(mine[1]);
  });
  it("call each page's items by their name", () => {
    expect(itemNoun("dashboard")).toBe("dashboard");
    expect(itemNoun("explore")).toBe("saved report");
    expect(itemNoun("monitor")).toBe("monitor view");
  });
});
