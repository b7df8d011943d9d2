// One dashboard instance's report gateway on a shared PostgreSQL store, for lib/core/upstream/pg-jobs.test.ts:
// submits one report and prints its job id as a JSON line, then keeps running (fetching it) until
// the test kills it. Run as
//   node --conditions=react-server --import tsx lib/core/upstream/testing/instance.ts --query JSON
// with DATABASE_URL, SERVICE_URL, CLIENT_ID, CLIENT_SECRET, RATE_LIMIT, RATE_WINDOW_SECONDS, LEASE_SECONDS set.
import { parseArgs } from "node:util";
import { openStore } from "@/lib/core/store/open";
import { ReportGateway } from "../gateway";
import { pgSharedState } from "../pg-shared";

const { values } = parseArgs({ options: { query: { type: "string" } } });
const env = process.env;
const store = await openStore({ kind: "postgres", url: env.DATABASE_URL! }, { owner: "test instance" });
const config = {
  baseUrl: env.SERVICE_URL!,
  clientId: env.CLIENT_ID!,
  clientSecret: env.CLIENT_SECRET!,
  tokenUrl: `${env.SERVICE_URL!}/api/auth/token`,
  reportRateLimit: Number(env.RATE_LIMIT),
  rateWindowSeconds: Number(env.RATE_WINDOW_SECONDS),
  pageCap: 50,
  ttlPastSeconds: 86_400,
  ttlTodaySeconds: 300,
  timeZone: "UTC",
};
const gateway = new ReportGateway(config, pgSharedState(store, config, "doomed-instance", { jobLeaseSeconds: Number(env.LEASE_SECONDS) }));
const out = gateway.submit("orders", gateway.parse("orders", JSON.parse(values.query!)), "u-doomed");
if ("cached" in out) throw new Error("expected a job");
// Give the row a moment to be written before the test reads the id.
await new Promise((r) => setTimeout(r, 300));
console.log(JSON.stringify({ id: out.job.id }));
setInterval(() => undefined, 1_000);
