/** Tests' report gateway in front of the test service (service/testing/harness.ts): generous limits unless overridden. */
import { ReportGateway, type GatewayConfig } from "@/lib/core/upstream/gateway";
import type { SharedState } from "@/lib/core/upstream/shared";
import type { TestService } from "./harness";

export function gatewayFor(svc: TestService, overrides: Partial<GatewayConfig> = {}, shared: SharedState = {}): ReportGateway {
  return new ReportGateway({
    baseUrl: svc.url,
    clientId: svc.client.client_id,
    clientSecret: svc.client.client_secret,
    tokenUrl: `${svc.url}/api/auth/token`,
    reportRateLimit: 1000,
    rateWindowSeconds: 60,
    pageCap: 50,
    ttlPastSeconds: 86_400,
    ttlTodaySeconds: 300,
    timeZone: "UTC",
    maxJobsPerOwner: 1000,
    maxJobs: 10_000,
    ...overrides,
  }, shared);
}
