import { describe, expect, it } from "vitest";
import { shortcutFor, type KeyPress } from "./shortcuts";

const press = (key: string, over: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, altKey: false, typing: false, ...over });

describe("shortcutFor", () => {
  it("knows ? and / outside fields", () => {
    expect(shortcutFor(press("?"))).toBe("help");
    expect(shortcutFor(press("/"))).toBe("filters");
  });

  it("leaves ? and / to a field the user is typing in", () => {
    expect(shortcutFor(press("?", { typing: true }))).toBeNull();
    expect(shortcutFor(press("/", { typing: true }))).toBeNull();
  });

  it("runs with Ctrl or Cmd + Enter, also from inside a field", () => {
    expect(shortcutFor(press("Enter", { ctrlKey: true, typing: true }))).toBe("run");
    expect(shortcutFor(press("Enter", { metaKey: true }))).toBe("run");
    expect(shortcutFor(press("Enter"))).toBeNull();
  });

  it("leaves the browser's own modified keys alone", () => {
    expect(shortcutFor(press("/", { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(press("?", { altKey: true }))).toBeNull();
    expect(shortcutFor(press("Enter", { ctrlKey: true, altKey: true }))).toBeNull();
  });
});
