import { describe, expect, it } from "vitest";
import { sharerWords } from "./view";

describe("who shared a page, as a visitor reads it", () => {
  it("names the organisation, never the address", () => {
    expect(sharerWords("ana.lyst@acme.example")).toBe("a colleague at acme.example");
    expect(sharerWords("ana.lyst@acme.example")).not.toContain("ana.lyst");
    expect(sharerWords(null)).toBe("a former user");
  });
});
