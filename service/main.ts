// `npm run service`: the Order Summary and BIN Routing service, configured by the environment.
import { duckDbOptions, loadServiceConfig } from "./config";
import { Database } from "./db";
import { createService } from "./app";
import { createReplica } from "./replica";
import { jsonLogger, silentLogger } from "./http/log";
import { listen } from "./http/server";

async function main(): Promise<void> {
  let config;
  try {
    config = loadServiceConfig();
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(2);
  }
  const logger = config.SERVICE_LOG === "silent" ? silentLogger : jsonLogger();
  // A replica opens no DuckDB file: the owner holds it (service/http/owner.ts).
  const db = config.SERVICE_OWNER_URL ? null : await Database.open(config.SERVICE_DB, duckDbOptions(config));
  const service = db ? await createService(db, config, logger) : await createReplica(config, logger);
  const addr = await listen(service.server, config.SERVICE_PORT, config.SERVICE_HOST);
  logger.info("listening", { url: `http://${config.SERVICE_HOST}:${addr.port}`, ...(db ? { db: config.SERVICE_DB } : { owner: config.SERVICE_OWNER_URL ?? "" }) });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await service.close();
    db?.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
