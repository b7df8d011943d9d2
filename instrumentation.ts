// Runs once when a dashboard server starts (not during `next build`): takes the store, and stops the
// server on a bad environment. next.config.js has already refused one before this runs; the check
// here keeps the store from opening with a configuration nobody validated (e.g. a custom server).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { onServerStart } = await import("./lib/startup");
  await onServerStart();
}
