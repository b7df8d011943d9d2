import { describe, expect, it } from "vitest";
import { BIN_MEANING, checkBin, cutCardNumbers, fromCardNote, MAX_BULK_BINS, nextBinInput, parseBinList, takeBinInput, type BinInput } from "./lookup";

describe("the BIN field", () => {
  it("checks as you type, in a user's words", () => {
    expect(checkBin("").state).toBe("empty");
    expect(checkBin("4147")).toEqual({ state: "incomplete", message: `${BIN_MEANING}: 2 more digits needed.` });
    expect(checkBin("414720")).toEqual({ state: "ok", message: "6 digits: a valid BIN." });
    expect(checkBin("41472012").state).toBe("ok");
    expect(checkBin("414720123")).toMatchObject({ state: "invalid", message: expect.stringMatching(/^A BIN is the first 6 to 8 digits of the card number; this has 9 digits\. A whole card number/) });
    expect(checkBin("41a720")).toMatchObject({ state: "invalid", message: expect.stringMatching(/^A BIN is the first 6 to 8 digits of the card number: digits only/) });
  });
});

/** The field after typing `keys` one at a time at its end, as a browser sends them; every state it passed through. */
function typeKeys(keys: string, start: BinInput = { value: "" }): BinInput[] {
  const seen: BinInput[] = [];
  let field = start;
  for (const k of keys) {
    field = nextBinInput(field, field.value + k);
    seen.push(field);
  }
  return seen;
}

describe("a card number typed key by key into the BIN field", () => {
  it("keeps its first 8 digits, however it is grouped, and never holds a digit after them", () => {
    for (const [pan, bin, digits] of [
      ["4111 1111 1111 1111", "41111111", 16],
      ["4147-2093-5762-8841", "41472093", 16],
      ["3782 822463 10005", "37828224", 15],
      ["4147209357628841", "41472093", 16],
      ["6011 0009 9013 9424 123", "60110009", 19],
    ] as const) {
      const seen = typeKeys(pan);
      expect(seen.at(-1)).toEqual({ value: bin, fromCard: { bin, digits }, typed: true });
      // Every state on the way holds a start of the BIN and nothing more: the 9th digit on is never kept.
      for (const s of seen) expect(bin.startsWith(s.value.replace(/\D/g, ""))).toBe(true);
    }
  });
  it("says the number was typed, and when it ran longer than a card number", () => {
    const last = typeKeys("4111 1111 1111 1111").at(-1)!;
    expect(fromCardNote(last.fromCard!, "typed")).toBe("Using BIN 41111111 from the typed card number; the rest of the number was not kept.");
    const long = typeKeys("12345678901234567890123").at(-1)!;
    expect(long.fromCard).toEqual({ bin: "12345678", digits: 23 });
    expect(fromCardNote(long.fromCard!, "typed")).toMatch(/That was 23 digits/);
  });
  it("reads any other edit afresh: a deletion leaves the card number, a paste is a paste, a BIN stays a BIN", () => {
    const typed = typeKeys("4111 1111 1111").at(-1)!;
    // Backspace: the field's 8 digits lose one; nothing of a card is held any more.
    expect(nextBinInput(typed, "4111111")).toEqual({ value: "4111111" });
    // A whole number pasted over it: the paste path, and its note says pasted.
    expect(nextBinInput(typed, "5105 1051 0510 5100")).toEqual({ value: "51051051", fromCard: { bin: "51051051", digits: 16 } });
    // A BIN of 6 to 8 digits, typed: kept as typed, no card number in it.
    expect(typeKeys("4147 20").at(-1)).toEqual({ value: "414720" });
    expect(typeKeys("41472012").at(-1)).toEqual({ value: "41472012" });
    // A separator after a whole BIN is not yet a card number; a letter after it is for the check to explain.
    expect(typeKeys("41472012 ").at(-1)).toEqual({ value: "41472012" });
    expect(typeKeys("41472012x").at(-1)).toEqual({ value: "41472012x" });
    expect(checkBin("41472012x").state).toBe("invalid");
    // A pasted card number followed by a typed space stays what it was.
    const pasted = nextBinInput({ value: "" }, "4111 1111 1111 1111");
    expect(nextBinInput(pasted, `${pasted.value} `)).toEqual(pasted);
  });
});

describe("what the BIN field keeps of what is pasted or typed", () => {
  it("cuts a card number, grouped by spaces or dashes or not, to its first 8 digits and keeps nothing else", () => {
    for (const pan of ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", " 4111 1111 1111 1111\n", "Card: 4111 1111 1111 1111 exp 12/27"]) {
      expect(takeBinInput(pan)).toEqual({ value: "41111111", fromCard: { bin: "41111111", digits: 16 } });
    }
    // 19 digits (the longest card numbers), 15 (grouped 4-6-5) and 12 (the shortest).
    expect(takeBinInput("6011 0009 9013 9424 123")).toEqual({ value: "60110009", fromCard: { bin: "60110009", digits: 19 } });
    expect(takeBinInput("3782 822463 10005")).toEqual({ value: "37828224", fromCard: { bin: "37828224", digits: 15 } });
    expect(takeBinInput("501800000009")).toEqual({ value: "50180000", fromCard: { bin: "50180000", digits: 12 } });
  });
  it("the note quotes the BIN only, and says when the number was longer than a card number", () => {
    const note = fromCardNote({ bin: "41111111", digits: 16 });
    expect(note).toBe("Using BIN 41111111 from the pasted card number; the rest of the number was not kept.");
    expect(fromCardNote({ bin: "12345678", digits: 23 })).toMatch(/That was 23 digits, more than a card number has \(12 to 19\): check the BIN\.$/);
  });
  it("keeps a BIN of 6 to 8 digits, dropping spaces and dashes; leaves anything else for the check to explain", () => {
    expect(takeBinInput("414720")).toEqual({ value: "414720" });
    expect(takeBinInput(" 4147 20 ")).toEqual({ value: "414720" });
    expect(takeBinInput("4147-2012")).toEqual({ value: "41472012" });
    expect(takeBinInput("4147")).toEqual({ value: "4147" });
    // 9 to 11 digits are neither a BIN nor a card number: kept, and the check says so.
    expect(takeBinInput("414720123")).toEqual({ value: "414720123" });
    expect(checkBin(takeBinInput("414720123").value).state).toBe("invalid");
    // Letters: kept as typed (nothing of a card number in it), invalid with the reason.
    expect(takeBinInput("41a720")).toEqual({ value: "41a720" });
    expect(checkBin("41a720").state).toBe("invalid");
    expect(takeBinInput("")).toEqual({ value: "" });
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
      cards: 0,
    });
  });
  it("take a grouped card number as one card, its first 8 digits, while spaces still separate BINs", () => {
    const list = parseBinList("4111 1111 1111 1111\n5105-1051-0510-5100, 414720 510510\n3782 822463 10005;6011000990139424123");
    expect(list.bins).toEqual(["41111111", "51051051", "414720", "510510", "37828224", "60110009"]);
    expect(list.cards).toBe(4);
    expect(list.unused).toEqual([]);
  });
  it("never quote more of a card number than its BIN, even when it is not used", () => {
    const list = parseBinList("4111 1111 1111 1111\n4111111111111111");
    expect(list.bins).toEqual(["41111111"]);
    expect(list.unused).toEqual([{ token: "41111111", reason: "duplicate" }]);
    expect(JSON.stringify(list)).not.toContain("1111111111");
  });
  it("do not take dates or short groups for card numbers", () => {
    expect(parseBinList("2025-07-31 4111 1111").unused.map((u) => u.token)).toEqual(["2025-07-31", "4111", "1111"]);
    expect(cutCardNumbers("2025-07-31T12-00-00")).toEqual({ text: "2025-07-31T12-00-00", cards: 0 });
    expect(cutCardNumbers("a 4111 1111 1111 1111 b")).toEqual({ text: "a 41111111 b", cards: 1 });
  });
  it("flag more than 100", () => {
    const text = Array.from({ length: MAX_BULK_BINS + 1 }, (_, i) => String(400000 + i)).join("\n");
    expect(parseBinList(text).tooMany).toBe(true);
  });
});
