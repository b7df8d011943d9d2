// Vitest runs outside React's server environment, where the real "server-only" marker throws.
export {};
