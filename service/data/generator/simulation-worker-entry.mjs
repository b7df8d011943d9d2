// The simulation worker's entry point (simulation-worker.ts): plain JavaScript, so that a worker
// thread starts whatever runs its parent; it loads the TypeScript through tsx's API, as
// next.config.js does.
import { tsImport } from "tsx/esm/api";

await tsImport("./simulation-worker.ts", import.meta.url);
