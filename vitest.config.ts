import { defineConfig } from "vitest/config";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL(".", import.meta.url)),
      // The marker throws outside React's server build; tests are server code by definition.
      "server-only": fileURLToPath(new URL("./test/server-only-stub.ts", import.meta.url)),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "service/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    // Lowers the scrypt cost of the passwords tests hash (see the file).
    setupFiles: ["test/setup.ts"],
    // Bounds for a hung test or setup, not for a slow one: nothing a test asserts depends on them
    // (time-dependent behaviour is asserted by counts, order and injected clocks, docs/testing.md),
    // and on two cores shared with the browser tests, or with a machine's other work, a test that
    // starts servers or generates data can take minutes where it takes seconds alone.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Integration tests start real servers on their own ports; files run in parallel processes.
    pool: "forks",
    // Most files spend their time waiting (on servers, child processes, PGlite, quota windows), not
    // computing: on two cores vitest's default of one worker fewer than the cores ran one file at a
    // time, the cores mostly idle. One file a core keeps them busy without starving the tests that
    // measure quota windows and rate limits in real time (four at a time broke those under load).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
