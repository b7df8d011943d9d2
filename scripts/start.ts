// `npm start`: brings up everything that exists, on this machine, with demo data.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const DASHBOARD_PORT = Number(process.env.PORT ?? 3000);
const nextBin = "node_modules/next/dist/bin/next";

if (!existsSync(".next/BUILD_ID") || process.env.REBUILD === "1") {
  console.log("start: building the dashboard (first run only)…");
  const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const dashboard = spawn(process.execPath, [nextBin, "start", "--port", String(DASHBOARD_PORT), "--hostname", "localhost"], {
  stdio: "inherit",
});
console.log(`start: dashboard at http://localhost:${DASHBOARD_PORT}`);

const stop = () => dashboard.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
dashboard.on("exit", (code) => process.exit(code ?? 0));
