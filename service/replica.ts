/**
 * A replica instance (`SERVICE_OWNER_URL` set; service/http/owner.ts): reports from ClickHouse,
 * admitted by the owner; tokens and routing relayed to the owner. It opens no DuckDB file, so any
 * number of replicas can run beside the owner, on any machine that reaches it and ClickHouse.
 */
import { BIN_ROUTING_PREVIEW_PATH } from "@/lib/contract/openapi";
import type { Service } from "./app";
import { ClickHouseServers } from "./clickhouse/connection";
import { currentVersion } from "./clickhouse/publish";
import { ClickHouseReports } from "./clickhouse/reports";
import { serverTimeouts, type ServiceConfig } from "./config";
import type { Logger } from "./http/log";
import { instanceKey, OwnerLink } from "./http/owner";
import { infoRoutes } from "./http/info";
import {
  ROUTING_CONFIG_PATH,
  ROUTING_CONFIG_PREVIEW_PATH,
  ROUTING_CONFIG_RESTORE_PATH,
  ROUTING_CONFIG_VALIDATE_PATH,
  ROUTING_CONFIG_VERSIONS_PATH,
} from "@/lib/contract/bin-routing";
import { checkBearer } from "./http/admission";
import type { AuthMode, Route } from "./http/route";
import { closeServer, createApiServer } from "./http/server";
import { TokenSigner } from "./http/tokens";
import { reportRoutes } from "./reports/route";

/**
 * What a replica relays to the owner whole: everything that reads or changes the owner's state,
 * with the credentials each needs, checked here before the call takes a connection to the owner
 * (the token endpoint's credentials are its body, which only the owner can check).
 */
export const RELAYED_PATHS: ReadonlyMap<string, AuthMode> = new Map<string, AuthMode>([
  ["/api/auth/token", "none"],
  ["/api/bin-routing/route", "bearer"],
  [BIN_ROUTING_PREVIEW_PATH, "bearer"],
  ...[ROUTING_CONFIG_PATH, ROUTING_CONFIG_VERSIONS_PATH, ROUTING_CONFIG_RESTORE_PATH, ROUTING_CONFIG_VALIDATE_PATH, ROUTING_CONFIG_PREVIEW_PATH].map((p): [string, AuthMode] => [p, "bearer"]),
]);

export async function createReplica(config: ServiceConfig, logger: Logger): Promise<Omit<Service, "clients">> {
  const ownerUrl = config.SERVICE_OWNER_URL;
  if (!ownerUrl) throw new Error("a replica needs SERVICE_OWNER_URL");
  const ch = new ClickHouseServers({ urls: config.CLICKHOUSE_URL ?? [], cluster: config.CLICKHOUSE_CLUSTER ?? null, database: config.CLICKHOUSE_DATABASE });
  const owner = new OwnerLink(ownerUrl, instanceKey(config.SERVICE_TOKEN_SECRET), undefined, {
    connections: config.SERVICE_RELAY_CONNECTIONS,
    perClient: config.SERVICE_RELAY_PER_CLIENT,
    queuedPerClient: config.SERVICE_RELAY_QUEUE_PER_CLIENT,
  });
  // The owner's token key is this instance's too: a forged or expired token is refused here, at no cost to the owner.
  const tokens = new TokenSigner(config.SERVICE_TOKEN_SECRET, config.TOKEN_TTL_SECONDS);
  try {
    // The owner publishes (it holds the data); a replica reads what it published, and follows later publishes.
    const published = await currentVersion(ch).catch(() => null);
    if (!published) throw new Error("ClickHouse holds no published version of the data yet: start the owner (the instance with the DuckDB file) first");
    logger.info("replica", { message: `reports read ${published.database}; tokens and routing go to the owner`, owner: ownerUrl });
    const reports = new ClickHouseReports(ch, published);
    const routes: Record<string, Route[]> = { ...reportRoutes(reports), ...infoRoutes() };
    const server = createApiServer({ routes, admission: owner, logger, relay: { paths: RELAYED_PATHS, check: (mode, credentials) => (mode === "none" ? undefined : checkBearer(credentials, tokens)), to: owner },
      trustedProxyHops: config.SERVICE_TRUSTED_PROXY_HOPS,
      timeouts: serverTimeouts(config),
    });
    return {
      server,
      async close() {
        await closeServer(server);
        owner.close();
        await ch.close();
      },
    };
  } catch (e) {
    owner.close();
    await ch.close();
    throw e;
  }
}
