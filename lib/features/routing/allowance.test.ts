/**
 * Each user's share of the dashboard's routing bucket, against the real service (its routing bucket
 * made small) and a real PGlite store, with the allowance's clock injected: an analyst's burst of
 * previews and validations spends the analyst's share and no more, so an admin's BIN lookup is still
 * answered; without the share the same burst closes the bucket for everyone (what was found). Upstream
 * calls are counted, never timed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import type { Role } from "@/lib/core/auth/roles";
import { usersRepo } from "@/lib/core/auth/users";
import { ApiError } from "@/lib/contract/errors";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { UpstreamClient } from "@/lib/core/upstream/client";
import { getRoutingConfig } from "./upstream";
import { ReportGateway } from "@/lib/core/upstream/gateway";
import { createClient } from "@/service/clients";
import { loadRoutingConfig } from "@/service/routing/loader";
import { startTestService, type TestService } from "@/service/testing/harness";
import { describeUse } from "@/lib/core/upstream/routing-allowance";
import { lookUpBinWithin } from "@/lib/features/bin-lookup/calls";
import { previewFor } from "./calls";
import { routingUser } from "./permissions";
import { countedClients, loadWorkspace, validateChange, type WorkspaceDeps } from "./workspace";

const BIN_X = "999999";
const configA = {
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: 3 }] },
    { group_id: 2, group_name: "two", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 4 }, { gateway_id: 5 }] },
  ],
  rules: [{ type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 2, created_at: "2025-01-01T00:00:00Z" }],
};
const proposed = { ...configA, rules: [{ ...configA.rules[0]!, group_id: 1 }] };
/** 500 BINs, the most one preview takes. */
const BINS = Array.from({ length: 500 }, (_, i) => String(400_000 + i));

/** The service's routing bucket per client in its window: small, so a burst can fill it. */
const BUCKET = 40;
/** Each user's share here (ROUTING_CALLS_PER_USER), a quarter of the bucket. */
const SHARE = 10;

/** The dashboard's reporting client, counting the routing calls it sends (the configuration endpoints). */
class CountingClient extends UpstreamClient {
  sent = 0;
  override extension(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    this.sent += 1;
    return super.extension(method, path, body);
  }
}

let svc: TestService;
let dir: string;
let store: Store;
let admin: SessionUser;

/** A dashboard client of its own (the service's buckets are per client), counting its calls, and a gateway on the same client. */
async function dashboard(name: string): Promise<{ read: CountingClient; gateway: ReportGateway }> {
  const c = await createClient(svc.db, name);
  await svc.service.clients.refresh();
  const creds = { baseUrl: svc.url, clientId: c.client_id, clientSecret: c.client_secret, tokenUrl: `${svc.url}/api/auth/token` };
  const gateway = new ReportGateway({ ...creds, reportRateLimit: 1000, rateWindowSeconds: 60, pageCap: 50, ttlPastSeconds: 86_400, ttlTodaySeconds: 300, timeZone: "UTC" });
  return { read: new CountingClient(creds), gateway };
}

async function user(email: string, role: Role): Promise<SessionUser> {
  const u = await usersRepo(store).create({ email, role, passwordHash: "not used" });
  return { id: u.id, email: u.email, role: u.role };
}

/** The analyst's burst: previews of 500 BINs and validations, alternating; the refusals it met. */
async function burst(deps: WorkspaceDeps, analyst: SessionUser, n: number): Promise<ApiError[]> {
  const who = await routingUser(store, analyst);
  const refused: ApiError[] = [];
  for (let i = 0; i < n; i++) {
    const call = i % 2 === 0 ? previewFor(deps, who, { bins: BINS, config: proposed }) : validateChange(deps, who, proposed);
    await call.catch((e: unknown) => {
      if (!(e instanceof ApiError)) throw e;
      refused.push(e);
    });
  }
  return refused;
}

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 2, ordersPerDay: 5 },
    env: { ROUTING_RATE_LIMIT: String(BUCKET), REPORT_RATE_LIMIT: "1000000" },
    setup: async (db) => {
      const r = await loadRoutingConfig(db, configA, { author: "test", reason: "version A" });
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
    },
  });
  dir = mkdtempSync(join(tmpdir(), "routing-allowance-"));
  store = await openTestPglite(dir, "routing allowance test");
  admin = await user("ada@test.local", "admin");
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await svc?.stop();
});

describe("each user's share of the routing bucket", () => {
  it("without a share, one analyst's burst closes BIN lookups for everyone (the finding)", async () => {
    const { read, gateway } = await dashboard("dashboard without shares");
    const deps: WorkspaceDeps = { store, clients: { read, write: null }, twoPerson: false, callsPerUser: 1_000_000 };
    const refused = await burst(deps, await user("ana@test.local", "analyst"), BUCKET + 10);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.map((e) => e.status).filter((st) => st !== 429), "refusals that were not 429").toEqual([]);
    const lookup = await lookUpBinWithin({ store, callsPerUser: 1_000_000, gateway }, admin, { bin: BIN_X }, "preview").then(
      () => null,
      (e: unknown) => e,
    );
    expect(lookup).toBeInstanceOf(ApiError);
    expect((lookup as ApiError).status).toBe(429);
  });

  it("with a share, the burst stops at the analyst's own limit, named in their words, and the admin's lookup is answered", async () => {
    const { read, gateway } = await dashboard("dashboard with shares");
    let now = new Date("2026-03-02T10:00:00Z");
    const deps: WorkspaceDeps = { store, clients: { read, write: null }, twoPerson: false, callsPerUser: SHARE, now: () => now };

    // The admin opens the workspace first (2 routing calls: the live version and the versions).
    await loadWorkspace(deps, await routingUser(store, admin));
    expect(read.sent).toBe(2);

    const analyst = await user("anne@test.local", "analyst");
    const refused = await burst(deps, analyst, 60);
    // 5 previews and 5 validations reached the service, one call each; the other 50 never left the dashboard.
    expect(read.sent).toBe(2 + SHARE);
    expect(refused).toHaveLength(60 - SHARE);
    const first = refused[0]!;
    expect(first.status).toBe(429);
    expect(first.message).toContain("You have previewed 500 BINs 5 times and validated 5 times this minute: 10 routing calls");
    expect(first.message).toContain("ROUTING_CALLS_PER_USER=10");
    expect(first.headers["Retry-After"]).toBe("60");

    // The admin's BIN lookup is answered by the service (a routing decision, not a 429).
    const answer = await lookUpBinWithin({ store, callsPerUser: SHARE, now: () => now, gateway }, admin, { bin: BIN_X }, "preview");
    expect(answer).toMatchObject({ mode: "preview", group_id: 2 });

    // Once the window has passed on the allowance's clock, the analyst may preview again.
    now = new Date(now.getTime() + 61_000);
    const again = await burst(deps, analyst, 1);
    expect(again).toEqual([]);
    expect(read.sent).toBe(2 + SHARE + 1);
  });

  it("work whose calls depend on its data (proposals, effects) spends the user's share call by call", async () => {
    const { read } = await dashboard("dashboard counting reads");
    const now = new Date("2026-03-02T10:00:00Z");
    const deps: WorkspaceDeps = { store, clients: { read, write: null }, twoPerson: false, callsPerUser: 3, now: () => now };
    const reader = await routingUser(store, await user("rae@test.local", "analyst"));
    const counted = countedClients(deps, reader);
    for (let i = 0; i < 3; i++) await getRoutingConfig(counted);
    const refused = await getRoutingConfig(counted).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).message).toContain("You have read the live routing 3 times this minute");
    expect(read.sent).toBe(3);
  });

  it("says what the user did in their own words", () => {
    expect(describeUse([{ kind: "preview", n: 20, bins: 10_000 }])).toBe("previewed 500 BINs 20 times");
    expect(describeUse([{ kind: "preview", n: 2, bins: 3 }, { kind: "lookup", n: 1, bins: 0 }])).toBe("previewed 3 BINs in 2 previews and looked up 1 BIN");
    expect(describeUse([{ kind: "validate", n: 1, bins: 0 }, { kind: "read", n: 4, bins: 0 }, { kind: "change", n: 2, bins: 0 }])).toBe(
      "validated once, read the live routing 4 times and made 2 routing change calls",
    );
  });
});
