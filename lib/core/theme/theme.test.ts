import { describe, expect, it } from "vitest";
import { parseThemeChoice } from "./theme";

describe("theme choice", () => {
  it("keeps light and dark; anything else stored is System", () => {
    expect(parseThemeChoice("light")).toBe("light");
    expect(parseThemeChoice("dark")).toBe("dark");
    for (const v of [null, undefined, "", "system", "Dark", "blue"]) expect(parseThemeChoice(v)).toBe("system");
  });
});
