// An alert's filters on an object's own machinery are refused by name, never dropped (a dropped
// filter would watch, and mail, more than the rule says).
import { describe, expect, it } from "vitest";
import { AlertDefinition } from "./definition";

const body = (filters: string) =>
  JSON.parse(`{"target":{"kind":"measure","measure":"revenue"},"condition":{"kind":"above","value":1},"group_by":null,"window":"last7","filters":${filters}}`) as unknown;

describe("alert filter keys", () => {
  for (const key of ["__proto__", "constructor", "toString", "nope"]) {
    it(`refuses ${key}`, () => {
      const r = AlertDefinition.safeParse(body(`{"${key}":["x"]}`));
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message).join(" ")).toContain(`“${key}” is not a dimension of the order summary`);
    });
  }

  it("keeps a real dimension's filter", () => {
    const r = AlertDefinition.safeParse(body(`{"card_brand":["VISA"]}`));
    expect(r.success && r.data.filters).toEqual({ card_brand: ["VISA"] });
  });
});
