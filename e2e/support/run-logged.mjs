// Runs a command with its output copied to a log file (for the secret scan of the dashboard's log)
// and to this process's output, forwarding stop signals so the child never outlives the test run.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";

const [logFile, cmd, ...args] = process.argv.slice(2);
const log = createWriteStream(logFile, { flags: "a" });
const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
for (const stream of [child.stdout, child.stderr]) {
  stream.on("data", (chunk) => {
    log.write(chunk);
    process.stdout.write(chunk);
  });
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => {
  log.end();
  process.exit(code ?? (signal ? 1 : 0));
});
