/** The bounded memo of body text → cache key behind the report routes' exact hits. */
import { describe, expect, it } from "vitest";
import { BodyKeys } from "./body-keys";

describe("BodyKeys", () => {
  it("answers a kept key for the same operation and exact text only", () => {
    const keys = new BodyKeys({ maxEntries: 10, maxTextLength: 100 });
    keys.set("orders", '{"a":1}', "orders:A");
    expect(keys.get("orders", '{"a":1}')).toBe("orders:A");
    expect(keys.get("cohort", '{"a":1}')).toBeUndefined(); // the same text asked of the other operation
    expect(keys.get("orders", '{"a": 1}')).toBeUndefined(); // another spelling is validated again
    expect(keys.get("orders", '{"a":1} ')).toBeUndefined();
  });

  it("keeps at most maxEntries, the least recently used out first", () => {
    const keys = new BodyKeys({ maxEntries: 3, maxTextLength: 100 });
    for (const t of ["a", "b", "c"]) keys.set("orders", t, `k${t}`);
    expect(keys.get("orders", "a")).toBe("ka"); // a is now the most recently used
    keys.set("orders", "d", "kd");
    expect(keys.size).toBe(3);
    expect(keys.get("orders", "b")).toBeUndefined(); // b was the least recently used
    expect(["a", "c", "d"].map((t) => keys.get("orders", t))).toEqual(["ka", "kc", "kd"]);
    for (let i = 0; i < 1000; i++) keys.set("orders", `t${i}`, `k${i}`);
    expect(keys.size).toBe(3);
  });

  it("never keeps a text longer than maxTextLength", () => {
    const keys = new BodyKeys({ maxEntries: 10, maxTextLength: 5 });
    keys.set("orders", "123456", "k");
    expect(keys.size).toBe(0);
    expect(keys.get("orders", "123456")).toBeUndefined();
    keys.set("orders", "12345", "k");
    expect(keys.get("orders", "12345")).toBe("k");
  });
});
