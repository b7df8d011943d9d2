// Runs once when a dashboard server starts (not during `next build`): env validation and the store.
// Chosen over validating in next.config.ts, which `next build` also loads in CI without any
// environment, and which cannot import server-only modules.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { onServerStart } = await import("./lib/startup");
  await onServerStart();
}
