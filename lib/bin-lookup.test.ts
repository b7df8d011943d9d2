import { describe, expect, it } from "vitest";
import { BIN_MEANING, checkBin, MAX_BULK_BINS, parseBinList } from "./bin-lookup";

describe("the BIN field", () => {
  it("checks as you type, in a user's words", () => {
    expect(checkBin("").state).toBe("empty");
    expect(checkBin("4147")).toEqual({ state: "incomplete", message: `${BIN_MEANING}: 2 more digits needed.` });
    expect(checkBin("414720")).toEqual({ state: "ok", message: "6 digits: a valid BIN." });
    expect(checkBin("41472012").state).toBe("ok");
    expect(checkBin("414720123")).toEqual({ state: "invalid", message: `${BIN_MEANING}; this has 9 digits.` });
    expect(checkBin("41a720")).toMatchObject({ state: "invalid", message: expect.stringMatching(/^A BIN is the first 6 to 8 digits of the card number: digits only/) });
  });
});

describe("bulk lists", () => {
  it("take BINs separated any common way, and list every token they do not use, with why", () => {
    expect(parseBinList('bin\n"414720"\n414720, 51234567;abc123\t\n12 123456789')).toEqual({
      bins: ["414720", "51234567"],
      unused: [
        { token: "bin", reason: "not a number" },
        { token: "414720", reason: "duplicate" },
        { token: "abc123", reason: "not a number" },
        { token: "12", reason: "too short (2 digits; a BIN has 6 to 8)" },
        { token: "123456789", reason: "too long (9 digits; a BIN has 6 to 8)" },
      ],
      tooMany: false,
    });
  });
  it("flag more than 100", () => {
    const text = Array.from({ length: MAX_BULK_BINS + 1 }, (_, i) => String(400000 + i)).join("\n");
    expect(parseBinList(text).tooMany).toBe(true);
  });
});
