// A dashboard web server's start, for lib/startup/background.test.ts: runs lib/startup/index.ts's
// onServerStart (what instrumentation.ts calls in `next start`) with this process's environment, stays
// up for --for ms as a server would, then exits. Run it as
//   node --conditions=react-server --import tsx lib/startup/testing/web-start.ts --for MS
// (react-server: the modules are marked server-only).
import { parseArgs } from "node:util";
import { onServerStart } from "@/lib/startup";

const { values } = parseArgs({ options: { for: { type: "string", default: "5000" } } });
await onServerStart();
await new Promise((r) => setTimeout(r, Number(values.for)));
process.exit(0);
