import { describe, expect, it } from "vitest";
import { PRINT_TOKEN_TTL_MS, makePrintToken, makeSharePrintToken, readPrintToken, readSharePrintToken } from "./print-token";

const SECRET = "s".repeat(40);
const REPORT = "0b6f0f5e-7d1e-4b8e-9a43-4f1a2b3c4d5e";
const NOW = Date.parse("2026-11-02T08:00:00Z");

describe("print tokens", () => {
  const token = makePrintToken({ userId: "u-1", reportId: REPORT, preset: "last30", queue: "user" }, SECRET, NOW);

  it("open the report they name, for the user they name, until they expire", () => {
    expect(readPrintToken(token, REPORT, SECRET, NOW + 1)).toEqual({ userId: "u-1", reportId: REPORT, preset: "last30", queue: "user", expires: NOW + PRINT_TOKEN_TTL_MS });
    expect(readPrintToken(token, REPORT, SECRET, NOW + PRINT_TOKEN_TTL_MS)).toBeNull();
  });

  it("open no other report, nothing under another secret, and nothing once changed", () => {
    expect(readPrintToken(token, "another", SECRET, NOW)).toBeNull();
    expect(readPrintToken(token, REPORT, "t".repeat(40), NOW)).toBeNull();
    const [body, mac] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ u: "admin", r: REPORT, p: null, q: "user", e: NOW + 1e9 })).toString("base64url");
    expect(readPrintToken(`${forged}.${mac}`, REPORT, SECRET, NOW)).toBeNull();
    expect(readPrintToken(`${body}.${mac}x`, REPORT, SECRET, NOW)).toBeNull();
    expect(readPrintToken(`${body}.${mac}.x`, REPORT, SECRET, NOW)).toBeNull();
    for (const bad of [null, undefined, "", ".", "abc"]) expect(readPrintToken(bad, REPORT, SECRET, NOW)).toBeNull();
  });

  it("a share's token opens that share only, until it expires, and is no report's token (nor a report's token a share's)", () => {
    const hash = "a".repeat(64);
    const share = makeSharePrintToken(hash, SECRET, NOW);
    expect(readSharePrintToken(share, hash, SECRET, NOW + 1)).toBe(true);
    expect(readSharePrintToken(share, hash, SECRET, NOW + PRINT_TOKEN_TTL_MS)).toBe(false);
    expect(readSharePrintToken(share, "b".repeat(64), SECRET, NOW)).toBe(false);
    expect(readSharePrintToken(share, hash, "t".repeat(40), NOW)).toBe(false);
    expect(readPrintToken(share, REPORT, SECRET, NOW)).toBeNull();
    expect(readSharePrintToken(token, hash, SECRET, NOW)).toBe(false);
    for (const bad of [null, undefined, "", ".", "abc"]) expect(readSharePrintToken(bad, hash, SECRET, NOW)).toBe(false);
  });
});
