import { describe, expect, it } from "vitest";
import { describeLink, expiryWords, tailText } from "./link-view";

describe("how a share link is named", () => {
  const made = "2026-03-28T13:05:09.000Z";
  it("by label, token tail and creation time", () => {
    expect(describeLink({ label: "For the bank", tokenTail: "Ab3x_9", createdAt: made }, "Europe/Berlin")).toBe(
      "“For the bank” (ending …Ab3x_9, created 2026-03-28 14:05:09 Europe/Berlin)",
    );
  });
  it("without a label, and without a tail for links made before tails were kept", () => {
    expect(describeLink({ label: null, tokenTail: "Ab3x_9", createdAt: made }, "UTC")).toBe("the unlabelled link (ending …Ab3x_9, created 2026-03-28 13:05:09 UTC)");
    expect(describeLink({ label: null, tokenTail: null, createdAt: made }, "UTC")).toBe("the unlabelled link (created 2026-03-28 13:05:09 UTC)");
    expect(tailText({ tokenTail: null })).toBe("—");
  });
  it("says the expiry in words", () => {
    expect(expiryWords(1, "hours")).toBe("1 hour");
    expect(expiryWords(6, "hours")).toBe("6 hours");
    expect(expiryWords(1, "days")).toBe("1 day");
  });
});
