import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MonitorConfigError, loadMonitorConfig, readMonitorConfigFile } from "./config-file";
import { DEFAULT_MONITOR_CONFIG, type MonitorConfig } from "./definitions";

const dir = mkdtempSync(join(tmpdir(), "monitor-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(text: string): string {
  const path = join(dir, `monitor-${++n}.json`);
  writeFileSync(path, text);
  return path;
}

function errorOf(path: string): MonitorConfigError {
  try {
    readMonitorConfigFile(path);
  } catch (e) {
    if (e instanceof MonitorConfigError) return e;
    throw e;
  }
  throw new Error("expected a MonitorConfigError");
}

const custom: MonitorConfig = {
  programs: [
    {
      id: "visa-vamp",
      name: "VAMP, acquirer's stricter line",
      cardBrand: "VISA",
      numerator: { chargebacks: true, alertTypes: ["RDR"] },
      denominator: { month: "same" },
      thresholds: [{ level: "excessive", ratio: 0.009, minCount: 1501, from: "2026-04-01" }],
    },
  ],
  alertCost: { ETHOCA: 32, CDRN: 27.5, RDR: 9.99 },
};

describe("loadMonitorConfig", () => {
  it("is the built-in configuration when MONITOR_CONFIG is unset", () => {
    expect(loadMonitorConfig(undefined)).toBe(DEFAULT_MONITOR_CONFIG);
  });

  it("reads and validates the file otherwise", () => {
    expect(loadMonitorConfig(file(JSON.stringify(custom)))).toEqual(custom);
  });
});

describe("readMonitorConfigFile", () => {
  it("reads a valid file, also with a byte-order mark, and a path relative to the working directory", () => {
    expect(readMonitorConfigFile(file(JSON.stringify(custom, null, 2)))).toEqual(custom);
    expect(readMonitorConfigFile(file(`\uFEFF${JSON.stringify(DEFAULT_MONITOR_CONFIG)}`))).toEqual(DEFAULT_MONITOR_CONFIG);
    expect(readMonitorConfigFile(relative(process.cwd(), file(JSON.stringify(custom))))).toEqual(custom);
  });

  it("names the file when it is missing", () => {
    const missing = join(dir, "nowhere.json");
    const e = errorOf(missing);
    expect(e.file).toBe(missing);
    expect(e.message).toBe(`MONITOR_CONFIG (${missing}): cannot be read (ENOENT)`);
  });

  it("names the file when it is a directory", () => {
    expect(errorOf(dir).message).toMatch(/cannot be read \(EISDIR\)/);
  });

  it.each([
    ["a trailing comma", '{"programs": [],}'],
    ["a comment", '// monitor\n{"programs": []}'],
    ["nothing", ""],
  ])("rejects invalid JSON (%s), naming the file", (_what, text) => {
    const path = file(text);
    const e = errorOf(path);
    expect(e.message).toMatch(new RegExp(`^MONITOR_CONFIG \\(${path.replace(/[.\\]/g, "\\$&")}\\): is not valid JSON: `));
  });

  it("rejects valid JSON with bad content, naming the file and every bad field", () => {
    const bad = JSON.parse(JSON.stringify(custom)) as { programs: { cardBrand: string; thresholds: { ratio: number }[] }[]; extra?: boolean };
    bad.programs[0]!.cardBrand = "JCB";
    bad.programs[0]!.thresholds[0]!.ratio = -0.01;
    bad.extra = true;
    const path = file(JSON.stringify(bad));
    const e = errorOf(path);
    expect(e.file).toBe(path);
    expect(e.message).toMatch(new RegExp(`^MONITOR_CONFIG \\(${path.replace(/[.\\]/g, "\\$&")}\\): Invalid monitor configuration: `));
    expect(e.message).toContain("programs.0.cardBrand: ");
    expect(e.message).toContain("programs.0.thresholds.0.ratio: ");
    expect(e.message).toMatch(/\(root\): .*extra/);
  });

  it("rejects JSON that is not an object", () => {
    expect(errorOf(file("[]")).message).toContain("Invalid monitor configuration");
    expect(errorOf(file("null")).message).toContain("Invalid monitor configuration");
  });
});

describe("docs/metrics.md", () => {
  it("gives an example configuration that is valid", () => {
    const doc = readFileSync(join(process.cwd(), "docs/metrics.md"), "utf8");
    const section = doc.slice(doc.indexOf("### Configuration (`MONITOR_CONFIG`)"));
    const example = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(example).toBeDefined();
    const config = readMonitorConfigFile(file(example ?? ""));
    expect(config.programs.map((p) => p.id)).toEqual(["mastercard-ecp", "visa-vamp", "amex-watch"]);
    expect(config.programs.slice(0, 2)).toEqual(DEFAULT_MONITOR_CONFIG.programs);
  });
});
