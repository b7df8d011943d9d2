import { describe, expect, it } from "vitest";
import { checkBin, MAX_BULK_BINS, parseBinList } from "./bin-lookup";

describe("the BIN field", () => {
  it("checks as you type", () => {
    expect(checkBin("").state).toBe("empty");
    expect(checkBin("4147").state).toBe("incomplete");
    expect(checkBin("414720")).toEqual({ state: "ok", message: "6 digits: a valid BIN." });
    expect(checkBin("41472012").state).toBe("ok");
    expect(checkBin("414720123").state).toBe("invalid");
    expect(checkBin("41a720").state).toBe("invalid");
  });
});

describe("bulk lists", () => {
  it("take BINs separated any common way, skip a header and keep repeats", () => {
    expect(parseBinList('bin\n"414720"\n414720, 51234567;abc123\t\n12')).toEqual({
      bins: ["414720", "414720", "51234567"],
      invalid: [
        { token: "abc123", reason: "A BIN has digits only." },
        { token: "12", reason: "4 more digits needed (6 to 8)." },
      ],
      tooMany: false,
    });
  });
  it("flag more than 100", () => {
    const text = Array.from({ length: MAX_BULK_BINS + 1 }, (_, i) => String(400000 + i)).join("\n");
    expect(parseBinList(text).tooMany).toBe(true);
  });
});
