// What the API accepts for a new share link: label, expiry in hours or days, and the token's tail.
import { describe, expect, it } from "vitest";
import { expiresAt, expiryHours, LABEL_MAX, MAX_EXPIRY, ShareLinkInput, TOKEN_TAIL_LENGTH, tokenTail } from "./link-input";
import { SHARE_LIMITS } from "./service";
import { newShareToken } from "./tokens";

const parse = (body: unknown) => ShareLinkInput.safeParse(body);

describe("share link label", () => {
  it("is optional, trimmed, and empty means none", () => {
    expect(parse({}).data).toEqual({ mode: "live" });
    expect(parse({ label: "  For the bank manager " }).data?.label).toBe("For the bank manager");
    expect(parse({ label: "   " }).data?.label).toBeNull();
  });
  it("is bounded and refuses control characters", () => {
    expect(parse({ label: "x".repeat(LABEL_MAX) }).success).toBe(true);
    const long = parse({ label: "x".repeat(LABEL_MAX + 1) });
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]?.message).toBe(`a label has at most ${LABEL_MAX} characters`);
    expect(parse({ label: "two\nlines" }).success).toBe(false);
    expect(parse({ label: 42 }).success).toBe(false);
  });
});

describe("share link expiry", () => {
  it("takes whole hours or whole days, bounded by the same longest life", () => {
    expect(MAX_EXPIRY).toEqual({ hours: SHARE_LIMITS.maxDays * 24, days: SHARE_LIMITS.maxDays });
    expect(parse({ expires_in_hours: 1 }).success).toBe(true);
    expect(parse({ expires_in_hours: MAX_EXPIRY.hours }).success).toBe(true);
    expect(parse({ expires_in_hours: MAX_EXPIRY.hours + 1 }).success).toBe(false);
    expect(parse({ expires_in_hours: 0 }).success).toBe(false);
    expect(parse({ expires_in_hours: 1.5 }).success).toBe(false);
    expect(parse({ expires_in_days: SHARE_LIMITS.maxDays }).success).toBe(true);
    expect(parse({ expires_in_days: SHARE_LIMITS.maxDays + 1 }).success).toBe(false);
  });
  it("refuses hours and days together, and unknown fields", () => {
    const both = parse({ expires_in_hours: 2, expires_in_days: 1 });
    expect(both.success).toBe(false);
    expect(both.error?.issues[0]?.message).toBe("give the expiry in hours or in days, not both");
    expect(parse({ expires_in_minutes: 5 }).success).toBe(false);
  });
  it("ends that many hours (or days of 24 hours) after creation, the default when none is given", () => {
    const now = new Date("2026-03-28T22:30:00Z");
    expect(expiryHours({ expiresInHours: 6 })).toBe(6);
    expect(expiryHours({ expiresInDays: 2 })).toBe(48);
    expect(expiryHours({})).toBe(SHARE_LIMITS.defaultDays * 24);
    expect(expiresAt(6, now).toISOString()).toBe("2026-03-29T04:30:00.000Z");
    // Days are 24-hour spans, whatever a clock change does to the calendar.
    expect(expiresAt(expiryHours({ expiresInDays: 2 }), now).toISOString()).toBe("2026-03-30T22:30:00.000Z");
  });
});

describe("token tail", () => {
  it("is the token's last characters, far too few to stand for it", () => {
    const token = newShareToken();
    expect(tokenTail(token)).toBe(token.slice(-TOKEN_TAIL_LENGTH));
    expect(tokenTail(token)).toHaveLength(TOKEN_TAIL_LENGTH);
    expect(TOKEN_TAIL_LENGTH * 4).toBeLessThan(token.length);
    expect(() => tokenTail("short-token")).toThrow(/too short|cannot show/);
  });
});
