import { describe, expect, it } from "vitest";
import { getDimension, type DimensionDef } from "@/lib/contract/dimensions";
import { emptyResultWords } from "./describe-filters";
import { parseFilterInput, suggestValues, typedEntry, unseenNote, unseenValues, type KnownValues } from "./filter-input";
import { normalizeFilters, normalizeText, parseFilterValue } from "./filters";

const dim = (name: string): DimensionDef => getDimension(name)!;
const banks: KnownValues = {
  values: [
    { value: "BANK OF AMERICA N.A.", label: null },
    { value: "CITIBANK N.A.", label: null },
    { value: "JPMORGAN CHASE BANK N.A.", label: null },
    { value: "WELLS FARGO BANK", label: null },
  ],
  reports: 3,
  complete: true,
};
const gateways: KnownValues = {
  values: [
    { value: 3, label: "Chase East" },
    { value: 12, label: "Wells Retry" },
    { value: 17, label: "Stripe Main" },
  ],
  reports: 2,
  complete: true,
};

describe("free text as a filter sends it and its chip shows it", () => {
  it("is trimmed, every inner run of white space one space", () => {
    expect(normalizeText("  BANK   OF\tAMERICA\u00a0 N.A. ")).toBe("BANK OF AMERICA N.A.");
    expect(parseFilterValue(dim("bank"), " BANK  OF AMERICA ")).toBe("BANK OF AMERICA");
    expect(parseFilterInput(dim("affid"), "aff   1\n  aff 1 \nb", []).added).toEqual(["aff 1", "b"]);
    expect(parseFilterInput(dim("affid"), "aff   1\naff 1", []).duplicates).toBe(1);
    // A link carrying a run of spaces gets the same value the form would send.
    expect(normalizeFilters("orders", { bank: ["A  B", "A B"] })).toEqual({ bank: ["A B"] });
  });
  it("typed in another case than a value recent reports hold, takes that value's spelling; other text is sent as typed", () => {
    const r = parseFilterInput(dim("bank"), "bank of america n.a.\nBank of America", [], banks.values);
    expect(r.added).toEqual(["BANK OF AMERICA N.A.", "Bank of America"]);
    expect(r.respelled).toEqual([{ typed: "bank of america n.a.", as: "BANK OF AMERICA N.A." }]);
    // Already in the filter in the known spelling: a duplicate.
    expect(parseFilterInput(dim("bank"), "Bank Of America N.A.", ["BANK OF AMERICA N.A."], banks.values).duplicates).toBe(1);
  });
});

describe("ids", () => {
  it("refuse negative and non-integer values, each with its reason", () => {
    const r = parseFilterInput(dim("gateway_id"), "-3, 4.5, 12, x", []);
    expect(r.added).toEqual([12]);
    expect(r.rejected).toEqual([
      { token: "-3", reason: "negative: a Gateway ID is a whole number of 0 or more" },
      { token: "4.5", reason: "not a whole number" },
      { token: "x", reason: "not a whole number" },
    ]);
    expect(normalizeFilters("orders", { gateway_id: [-3, 3] })).toEqual({ gateway_id: [3] });
  });
});

describe("suggestions", () => {
  it("offer known values that contain what is typed, whatever its case, best matches first", () => {
    expect(suggestValues(banks.values, "Bank of America", []).map((k) => k.value)).toEqual(["BANK OF AMERICA N.A."]);
    expect(suggestValues(banks.values, "bank", []).map((k) => k.value)).toEqual(["BANK OF AMERICA N.A.", "JPMORGAN CHASE BANK N.A.", "WELLS FARGO BANK", "CITIBANK N.A."]);
    expect(suggestValues(banks.values, "  n.a.  ", []).map((k) => k.value)).toEqual(["BANK OF AMERICA N.A.", "CITIBANK N.A.", "JPMORGAN CHASE BANK N.A."]);
    expect(suggestValues(banks.values, "zzz", [])).toEqual([]);
  });
  it("match an id's name as well as the id, leave out values already chosen, and offer the first few when nothing is typed", () => {
    expect(suggestValues(gateways.values, "chase", []).map((k) => k.value)).toEqual([3]);
    expect(suggestValues(gateways.values, "1", []).map((k) => k.value)).toEqual([12, 17]);
    expect(suggestValues(gateways.values, "1", [12]).map((k) => k.value)).toEqual([17]);
    expect(suggestValues(gateways.values, "", [], 2).map((k) => k.value)).toEqual([3, 12]);
    expect(typedEntry(dim("gateway_id"), "3, 1")).toBe("1");
    expect(typedEntry(dim("bank"), "BANK OF, X")).toBe("BANK OF, X");
  });
});

describe("values not seen in recent answers", () => {
  it("are flagged before running, with the number of reports and, for text, the values seen that contain them", () => {
    expect(unseenNote([9999, 3], gateways)).toBe("9999 not seen in the last 2 reports: the report may come back empty.");
    expect(unseenNote(["Bank of America"], banks)).toBe("“Bank of America” not seen in the last 3 reports: the report may come back empty. Seen: “BANK OF AMERICA N.A.”.");
    expect(unseenNote([3], gateways)).toBeNull();
    expect(unseenNote([9999], { ...gateways, reports: 1 })).toBe("9999 not seen in the last report: the report may come back empty.");
  });
  it("are not flagged when nothing reliable is known", () => {
    expect(unseenValues([9999], undefined)).toEqual([]);
    expect(unseenValues([9999], { values: [], reports: 0, complete: true })).toEqual([]);
    // Some values were dropped to keep the list bounded: 9999 may have been among them.
    expect(unseenValues([9999], { ...gateways, complete: false })).toEqual([]);
  });
});

describe("an empty result names the filter(s) that emptied it", () => {
  it("one filter: that filter, and whether its value was seen", () => {
    expect(emptyResultWords({ bank: ["BANK OF X"] }, { bank: banks })).toBe(
      "No records: the filter Issuing bank is “BANK OF X” matched nothing in this range. “BANK OF X” was not seen in the last 3 reports either. Remove it, choose another value or widen the range.",
    );
    expect(emptyResultWords({ gateway_id: [3] }, { gateway_id: gateways })).toBe(
      "No records: the filter Gateway ID is 3 matched nothing in this range. Remove it, choose another value or widen the range.",
    );
  });
  it("several filters: those with values never seen, else all of them together", () => {
    expect(emptyResultWords({ gateway_id: [3, 9999], bank: ["CITIBANK N.A."] }, { gateway_id: gateways, bank: banks })).toBe(
      "No records, most likely because of the filter Gateway ID is 3 or 9999: 9999 was not seen in the last 2 reports. Remove it or choose values the suggestions offer.",
    );
    expect(emptyResultWords({ gateway_id: [3], bank: ["CITIBANK N.A."] }, { gateway_id: gateways, bank: banks })).toBe(
      "No records: the filters Gateway ID is 3 and Issuing bank is “CITIBANK N.A.” together match nothing in this range. Remove one at a time to see which empties it, or widen the range.",
    );
    expect(emptyResultWords({}, {})).toBe("No records in this range. Widen the range.");
  });
});
