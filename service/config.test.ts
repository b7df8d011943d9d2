import { describe, expect, it } from "vitest";
import { EnvError } from "@/lib/contract/env";
import { parseServerEnv } from "@/lib/core/env/env-schema";
import { duckDbOptions, loadDuckDbConfig, loadServiceConfig } from "./config";

const secret = "s".repeat(40);

describe("the service's configuration", () => {
  it("reads an empty value as unset, by the same rule as the dashboard: SERVICE_PORT= is the default port, not 0", () => {
    expect(loadServiceConfig({ SERVICE_TOKEN_SECRET: secret, SERVICE_PORT: "", REPORT_RATE_LIMIT: " " })).toMatchObject({ SERVICE_PORT: 4000, REPORT_RATE_LIMIT: 5 });
    expect(loadServiceConfig({ SERVICE_TOKEN_SECRET: secret, SERVICE_PORT: "0" }).SERVICE_PORT).toBe(0);
  });

  it("names every bad variable and never echoes a value", () => {
    let error: unknown;
    try {
      loadServiceConfig({ SERVICE_TOKEN_SECRET: "short-secret-value", SERVICE_PORT: "70000", REPORT_RATE_LIMIT: "five" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).variables).toEqual(["SERVICE_PORT", "SERVICE_TOKEN_SECRET", "REPORT_RATE_LIMIT"]);
    expect((error as EnvError).message).toMatch(/^Invalid service configuration:/);
    expect((error as EnvError).message).not.toContain("short-secret-value");
  });

  it("takes a replica (SERVICE_OWNER_URL) only with ClickHouse, which it answers reports from, and the owner as a bare URL", () => {
    const replica = { SERVICE_TOKEN_SECRET: secret, SERVICE_OWNER_URL: "http://10.0.0.5:4000" };
    expect(() => loadServiceConfig(replica)).toThrow(/a replica \(SERVICE_OWNER_URL\) answers reports from ClickHouse: set SERVICE_ENGINE=clickhouse/);
    expect(loadServiceConfig({ ...replica, SERVICE_ENGINE: "clickhouse", CLICKHOUSE_URL: "http://10.0.0.9:8123" }).SERVICE_OWNER_URL).toBe("http://10.0.0.5:4000");
    expect(() => loadServiceConfig({ ...replica, SERVICE_ENGINE: "clickhouse", CLICKHOUSE_URL: "http://10.0.0.9:8123", SERVICE_OWNER_URL: "http://10.0.0.5:4000/api" })).toThrow(/SERVICE_OWNER_URL must be/);
  });

  it("bounds DuckDB's memory by default (2GB) and takes a size or refuses it by name", () => {
    expect(loadServiceConfig({ SERVICE_TOKEN_SECRET: secret }).DUCKDB_MEMORY_LIMIT).toBe("2GB");
    expect(loadDuckDbConfig({ DUCKDB_MEMORY_LIMIT: "1536MiB", DUCKDB_TEMP_DIRECTORY: "/var/tmp/duck" })).toMatchObject({ DUCKDB_MEMORY_LIMIT: "1536MiB", DUCKDB_TEMP_DIRECTORY: "/var/tmp/duck" });
    expect(duckDbOptions(loadDuckDbConfig({ DUCKDB_THREADS: "2" }))).toEqual({ memoryLimit: "2GB", threads: 2 });
    expect(() => loadDuckDbConfig({ DUCKDB_MEMORY_LIMIT: "lots" })).toThrow(/DUCKDB_MEMORY_LIMIT must be a size such as 2GB or 1536MiB/);
  });

  it("is parsed by the one parser the dashboard uses too", () => {
    expect(() => parseServerEnv({ NEXTAUTH_SECRET: "" })).toThrow(EnvError);
  });
});
