/** Small helpers shared by the benchmark scripts: percentiles, child services, memory. */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export const median = (v: readonly number[]) => percentile(v, 50);

export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** Peak resident memory (VmHWM) of a process, in MiB, from /proc. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

export async function startServiceProcess(env: Record<string, string>, startTimeoutMs = 60_000): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  const port = 4600 + Math.floor(Math.random() * 300);
  const child = spawn(process.execPath, ["--import", "tsx", "service/main.ts"], {
    env: { ...process.env, SERVICE_HOST: "127.0.0.1", SERVICE_PORT: String(port), ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with code ${child.exitCode} before it listened`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error("service did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * `service:cli <args>` in a process of its own, so its time and peak memory are its own: its wall
 * time and its last line of output, the command's JSON summary.
 */
export function runCliInChild<T>(args: readonly string[]): Promise<{ seconds: number; summary: T }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--import", "tsx", "service/cli.ts", ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`service:cli ${args[0]} exited with ${code}: ${out.slice(-2000)}`));
      resolve({ seconds: (performance.now() - started) / 1000, summary: JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as T });
    });
  });
}
