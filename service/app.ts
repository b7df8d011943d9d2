/** Wires the service together: database, clients, tokens, limits, and the routes of SPEC.md §1–4. */
import type { Server } from "node:http";
import { TokenRequestSchema } from "@/lib/contract";
import { BIN_ROUTING_PREVIEW_PATH } from "@/lib/contract/openapi";
import { ApiError } from "@/lib/contract/errors";
import { ClientRegistry } from "./clients";
import { serverTimeouts, type ServiceConfig } from "./config";
import type { Database } from "./db";
import { hasDerived, rebuildDerived } from "./data/derived";
import { migrate } from "./data/schema";
import type { Logger } from "./http/log";
import { rateLimitHeaders, SlidingWindowLimiter } from "./http/rate-limit";
import { AdmitRequestSchema, ADMIT_PATH, decideAdmission, instanceKey } from "./http/owner";
import { LocalAdmission } from "./http/admission";
import type { Route } from "./http/route";
import { closeServer, createApiServer } from "./http/server";
import { TokenSigner } from "./http/tokens";
import { ClickHouseServers } from "./clickhouse/connection";
import { ensurePublished } from "./clickhouse/publish";
import { ClickHouseReports } from "./clickhouse/reports";
import { runReport, type ReportEngine } from "./reports/run";
import { reportRoutes } from "./reports/route";
import { infoRoutes } from "./http/info";
import { RoutingEngine } from "./routing/engine";
import { bareRoute, routingConfigRoutes, routingRoute } from "./routing/routes";

export interface Service {
  server: Server;
  clients: ClientRegistry;
  close(): Promise<void>;
}

/**
 * Where reports are answered (`SERVICE_ENGINE`), chosen here once: the DuckDB file itself, or
 * ClickHouse, which is first brought up to date with the file (service/clickhouse/publish.ts). Both
 * take the same validated request and answer the same records.
 */
async function openReportEngine(db: Database, config: ServiceConfig, logger: Logger): Promise<ReportEngine> {
  if (config.SERVICE_ENGINE === "duckdb") return { run: (op, req) => runReport(db, op, req), close: async () => undefined };
  const ch = new ClickHouseServers({ urls: config.CLICKHOUSE_URL ?? [], cluster: config.CLICKHOUSE_CLUSTER ?? null, database: config.CLICKHOUSE_DATABASE });
  try {
    const published = await ensurePublished(db, ch, (message) => logger.info("clickhouse", { message }));
    logger.info("clickhouse", { message: `reports read ${published.database}`, servers: ch.nodes.length, cluster: ch.cluster });
    const reports = new ClickHouseReports(ch, published);
    return { run: (op, req) => reports.run(op, req), close: () => ch.close() };
  } catch (e) {
    await ch.close();
    throw e;
  }
}

export async function createService(db: Database, config: ServiceConfig, logger: Logger): Promise<Service> {
  await migrate(db);
  await db.transaction(async (tx) => {
    if (!(await hasDerived(tx))) await rebuildDerived(tx);
  });
  const clients = new ClientRegistry(db);
  await clients.refresh();
  const tokens = new TokenSigner(config.SERVICE_TOKEN_SECRET, config.TOKEN_TTL_SECONDS);
  const windowMs = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
  const reportLimiter = new SlidingWindowLimiter(config.REPORT_RATE_LIMIT, windowMs);
  const tokenLimiter = new SlidingWindowLimiter(config.TOKEN_RATE_LIMIT, windowMs);
  const tokenAddressLimiter = new SlidingWindowLimiter(config.TOKEN_ADDRESS_RATE_LIMIT, windowMs);
  const routingLimiter = new SlidingWindowLimiter(config.ROUTING_RATE_LIMIT, windowMs);
  const reports = await openReportEngine(db, config, logger);
  const routing = await RoutingEngine.open(db, logger);
  const admission = new LocalAdmission(clients, tokens, { report: reportLimiter, routing: routingLimiter });

  const routes: Record<string, Route[]> = {
    "/api/auth/token": [
      {
        method: "POST",
        auth: "none",
        acceptsForm: true,
        async handle(body, ctx) {
          const { client_id, client_secret } = ApiError.parse(TokenRequestSchema, body);
          // Counted per address first (made-up ids cost scrypt too), then per client_id from that
          // address whether or not the secret is right: this is what slows guessing, and a guesser
          // elsewhere fills only their own window, never the one the client's real caller uses.
          const byAddress = tokenAddressLimiter.hit(ctx.address);
          const decision = byAddress.allowed ? tokenLimiter.hit(`${client_id}\u0000${ctx.address}`) : byAddress;
          Object.assign(ctx.headers, rateLimitHeaders(decision));
          if (!decision.allowed) {
            throw new ApiError(429, `Too many token requests; retry in ${decision.retryAfterSeconds} s`, undefined, {}, {
              retry_after: decision.retryAfterSeconds,
            });
          }
          if (!(await clients.verify(client_id, client_secret))) {
            throw new ApiError(401, "Invalid client credentials", undefined, { "WWW-Authenticate": 'Bearer realm="api"' });
          }
          ctx.clientId = client_id;
          const { token, expiresIn } = tokens.issue(client_id);
          return {
            body: {
              success: true,
              code: 200,
              message: "Access token issued",
              data: { access_token: token, token_type: "Bearer", expires_in: expiresIn },
              timestamp: ctx.now.toISOString(),
            },
          };
        },
      },
    ],
    ...reportRoutes(reports),
    "/api/bin-routing/route": [routingRoute(routing)],
    [BIN_ROUTING_PREVIEW_PATH]: [routingRoute(routing, "preview")],
    ...routingConfigRoutes(routing, clients),
    // A replica's reports are admitted here, in this instance's windows (service/http/owner.ts).
    [ADMIT_PATH]: [
      {
        method: "POST",
        auth: "none",
        instanceOnly: true,
        async handle(body, ctx) {
          return { body: await decideAdmission(admission, ApiError.parse(AdmitRequestSchema, body), ctx) };
        },
      },
    ],
    ...infoRoutes(),
  };

  if (config.SERVICE_BENCH_ENDPOINTS === "1") routes["/bench/bare"] = [bareRoute()];

  const server = createApiServer({ routes, admission, logger, instanceKey: instanceKey(config.SERVICE_TOKEN_SECRET), trustedProxyHops: config.SERVICE_TRUSTED_PROXY_HOPS, timeouts: serverTimeouts(config) });
  const sweeper = setInterval(() => {
    reportLimiter.sweep();
    tokenLimiter.sweep();
    tokenAddressLimiter.sweep();
    routingLimiter.sweep();
  }, windowMs);
  sweeper.unref();

  return {
    server,
    clients,
    async close() {
      clearInterval(sweeper);
      await closeServer(server);
      // Writes the calls still queued and folds the routing journal into the database.
      await routing.close();
      await reports.close();
    },
  };
}
