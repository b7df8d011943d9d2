import { describe, expect, it } from "vitest";
import { addDays, getDimension, LIMITS } from "@/lib/contract";
import { effectiveSort, sortAfterRegroup } from "./explore";
import { parseCohort } from "./cohort";
import { parseExplore, serializeExplore } from "./explore";
import { parseFilterInput } from "./filter-input";
import { MAX_RANGE_DAYS } from "./range";
import { checkRange, quote } from "./url-check";

const today = "2025-07-31";
const presets = ["last7", "last30"] as const;

describe("report URLs that cannot be applied exactly", () => {
  it("refuse a reversed range and offer it the right way round", () => {
    const r = checkRange("2025-07-10..2025-07-01", "last30", presets, today);
    expect(r.problem?.message).toBe("The range ends (2025-07-01) before it starts (2025-07-10).");
    expect(r.range).toEqual({ start: "2025-07-01", end: "2025-07-10" });
  });

  it("refuse a range that ends in the future and offer it cut at today", () => {
    const r = checkRange("2025-07-20..2025-08-05", "last30", presets, today);
    expect(r.problem?.message).toContain("ends after today (2025-07-31)");
    expect(r.range).toEqual({ start: "2025-07-20", end: "2025-07-31" });
    // wholly in the future: the same length, ending today
    expect(checkRange("2025-08-01..2025-08-10", "last30", presets, today).range).toEqual({ start: "2025-07-22", end: "2025-07-31" });
    // without today (a saved report checked on its own) the future is not judged
    expect(checkRange("2025-07-20..2025-08-05", "last30", presets).problem).toBeNull();
  });

  it("refuse a range over the cap and offer the longest range ending where it ended", () => {
    const r = checkRange("2010-01-01..2025-07-31", "last30", presets, today);
    expect(r.problem?.message).toBe("The range ends 5,690 days after it starts; at most 3,660.");
    expect(r.range).toEqual({ start: addDays("2025-07-31", -MAX_RANGE_DAYS), end: "2025-07-31" });
    expect(checkRange(`${addDays(today, -MAX_RANGE_DAYS)}..${today}`, "last30", presets, today).problem).toBeNull();
  });

  it("refuse malformed ranges, impossible dates and presets the page does not offer", () => {
    expect(checkRange("yesterday-ish", "last30", presets, today)).toMatchObject({ range: { preset: "last30" }, problem: { param: "range" } });
    expect(checkRange("2025-02-30..2025-03-01", "last30", presets, today).problem?.message).toBe("2025-02-30 is not a calendar date.");
    expect(checkRange("last90", "last30", presets, today).problem?.message).toBe("Last 90 days is not a period this page offers.");
    expect(checkRange("last7", "last30", presets, today)).toEqual({ range: { preset: "last7" }, problem: null });
  });

  it("name a filter value outside its enumeration, and never echo a long value whole", () => {
    const long = "x".repeat(5000);
    const { problems, state } = parseExplore(`range=last7&f.card_brand=FOO,visa&f.affid=${long}`, today);
    expect(problems).toEqual([
      { param: "f.card_brand", message: "“FOO” is not one of VISA, MASTERCARD, AMEX, DISCOVER (Card brand)." },
      { param: "f.affid", message: `${quote(long)} is not text of at most ${LIMITS.maxStringFilterLength} characters (Affiliate).` },
    ]);
    expect(problems[1]!.message.length).toBeLessThan(120);
    expect(state.filters).toEqual({ card_brand: ["VISA"] });
  });

  it("name unknown parameters and an unknown report type", () => {
    const { problems } = parseExplore("op=refunds&range=last7&group-by=date", today);
    expect(problems.map((p) => p.param)).toEqual(["group-by", "op"]);
  });

  it("accept every link the page itself writes, today's presets included", () => {
    const qs = "op=orders&range=2025-07-01..2025-07-31&by=date,card_brand&m=revenue&kpi=approval_rate&f.card_brand=VISA&sort=-revenue&chart=bar&cm=revenue";
    const parsed = parseExplore(qs, today);
    expect(parsed.problems).toEqual([]);
    expect(serializeExplore(parsed.state)).toBe(qs);
    expect(parseCohort("range=last365&f.campaign_id=3&cycles=36", today).problems).toEqual([]);
  });
});

describe("typed filter lists", () => {
  const campaign = getDimension("campaign_id")!;
  const affid = getDimension("affid")!;

  it("read numbers separated by commas, semicolons, spaces or new lines as several values", () => {
    expect(parseFilterInput(campaign, "12, 13", []).added).toEqual([12, 13]);
    expect(parseFilterInput(campaign, "12;13\n14\t15  16", []).added).toEqual([12, 13, 14, 15, 16]);
  });

  it("reject what is not a value, with why, and count duplicates and what is over the limit", () => {
    const r = parseFilterInput(campaign, "12, 1x3, 12, 7, 4.5", [7]);
    expect(r.added).toEqual([12]);
    expect(r.rejected).toEqual([
      { token: "1x3", reason: "not a whole number" },
      { token: "4.5", reason: "not a whole number" },
    ]);
    expect(r.duplicates).toBe(2);
    const full = Array.from({ length: LIMITS.maxFilterValues - 1 }, (_, i) => i + 1000);
    expect(parseFilterInput(campaign, "1 2 3", full)).toMatchObject({ added: [1], overLimit: 2 });
  });

  it("keep free text whole (commas included), one value per line, within the contract's length", () => {
    expect(parseFilterInput(affid, "aff, 2", []).added).toEqual(["aff, 2"]);
    expect(parseFilterInput(affid, "a1\nb2\n", []).added).toEqual(["a1", "b2"]);
    const long = "y".repeat(LIMITS.maxStringFilterLength + 1);
    expect(parseFilterInput(affid, long, []).rejected[0]?.reason).toBe(`longer than ${LIMITS.maxStringFilterLength} characters (it has 257)`);
  });
});

describe("sorting after the grouping changes", () => {
  it("drops a sort on a measure or on a dimension no longer grouped by", () => {
    expect(sortAfterRegroup({ key: "revenue", dir: "desc" }, ["date"], ["gateway_id"])).toBeNull();
    expect(sortAfterRegroup({ key: "date", dir: "desc" }, ["date"], ["gateway_id"])).toBeNull();
    expect(sortAfterRegroup({ key: "gateway_id", dir: "desc" }, ["date", "gateway_id"], ["gateway_id"])).toEqual({ key: "gateway_id", dir: "desc" });
    expect(sortAfterRegroup({ key: "revenue", dir: "desc" }, ["date"], ["date"])).toEqual({ key: "revenue", dir: "desc" });
  });

  it("sorts a date grouping by date unless the user sorts otherwise", () => {
    expect(effectiveSort(["product_id", "date"], null)).toEqual({ key: "date", dir: "asc" });
    expect(effectiveSort(["product_id"], null)).toBeNull();
    expect(effectiveSort(["date"], { key: "revenue", dir: "desc" })).toEqual({ key: "revenue", dir: "desc" });
  });
});
