// Runs before every unit test file (vitest.config.ts, setupFiles), in that file's own module graph.
import { setPasswordCost } from "@/lib/core/auth/password";

// Passwords hashed at scrypt's cheapest accepted cost (N = 2^10, a thirty-second of the production
// N): the tests that sign people in, lock them out or make accounts check what is done with a hash,
// not what it costs. lib/core/auth/password.test.ts sets the production cost back and tests it.
setPasswordCost({ ln: 10, r: 8, p: 1 });
