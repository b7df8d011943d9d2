import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_MONITOR_CONFIG } from "./definitions";

// The server-only wrapper, with the environment it reads (vitest stubs the "server-only" marker).
const dir = mkdtempSync(join(tmpdir(), "monitor-config-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = {
  NEXTAUTH_SECRET: "x".repeat(32),
  UPSTREAM_BASE_URL: "http://127.0.0.1:4000",
  UPSTREAM_CLIENT_ID: "client",
  UPSTREAM_CLIENT_SECRET: "secret-value",
  UPSTREAM_TOKEN_URL: "http://127.0.0.1:4000/api/auth/token",
  UPSTREAM_ACCESS_TOKEN: "",
};

async function fresh() {
  vi.resetModules();
  return import("./config");
}

beforeEach(() => {
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("monitorConfig", () => {
  it("is the defaults when MONITOR_CONFIG is unset or empty", async () => {
    vi.stubEnv("MONITOR_CONFIG", undefined);
    expect((await fresh()).monitorConfig()).toEqual(DEFAULT_MONITOR_CONFIG);
    vi.stubEnv("MONITOR_CONFIG", "");
    expect((await fresh()).monitorConfig()).toEqual(DEFAULT_MONITOR_CONFIG);
  });

  it("reads the file once and keeps it", async () => {
    const path = join(dir, "monitor.json");
    writeFileSync(path, JSON.stringify({ ...DEFAULT_MONITOR_CONFIG, alertCost: { ETHOCA: 1, CDRN: 2, RDR: 3 } }));
    vi.stubEnv("MONITOR_CONFIG", path);
    const { monitorConfig } = await fresh();
    const first = monitorConfig();
    expect(first.alertCost).toEqual({ ETHOCA: 1, CDRN: 2, RDR: 3 });
    writeFileSync(path, "not json any more");
    expect(monitorConfig()).toBe(first);
  });

  it("throws a MonitorConfigError for a bad file, until it is fixed", async () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, JSON.stringify({ ...DEFAULT_MONITOR_CONFIG, alertCost: { ETHOCA: -1, CDRN: 2, RDR: 3 } }));
    vi.stubEnv("MONITOR_CONFIG", path);
    const { monitorConfig, MonitorConfigError } = await fresh();
    expect(() => monitorConfig()).toThrow(MonitorConfigError);
    expect(() => monitorConfig()).toThrow(/alertCost\.ETHOCA/);
    writeFileSync(path, JSON.stringify(DEFAULT_MONITOR_CONFIG));
    expect(monitorConfig()).toEqual(DEFAULT_MONITOR_CONFIG);
  });
});
