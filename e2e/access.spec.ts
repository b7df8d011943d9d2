/**
 * Every API route under app/api, found on disk: anonymous calls get 401, viewers get 403 where
 * analysts are required; pages send anonymous visitors to the sign-in page.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, request as playwrightRequest, test } from "./support/test";
import { authFile, e2eEnv } from "./support/env";

interface ApiRoute {
  path: string;
  /** Each exported method with the role its apiRoute wrapper requires (null: a handler of its own). */
  methods: { method: string; role: string | null }[];
}

/** The dynamic segments of a route's path as a request would fill them. */
const concrete = (path: string) => path.replace(/\[\.\.\.[^\]]+\]/g, "x").replace(/\[[^\]]+\]/g, "some-id");

function findRoutes(dir = "app/api"): ApiRoute[] {
  const out: ApiRoute[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findRoutes(full));
    else if (name === "route.ts") {
      const source = readFileSync(full, "utf8");
      const wrapped = [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE) = apiRoute(?:<[^>]*>)?\(\{ role: "(\w+)"/g)].map((m) => ({ method: m[1]!, role: m[2]! }));
      const own = [...source.matchAll(/export (?:async )?function (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => ({ method: m[1]!, role: null }));
      out.push({ path: "/" + concrete(relative("app", dir)), methods: [...wrapped, ...own] });
    }
  }
  return out;
}

const PUBLIC = [/^\/api\/auth\//, /^\/api\/health$/, /^\/api\/share\//];
const routes = findRoutes();

test("finds the dashboard's API routes", () => {
  expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(["/api/reports/order-summary", "/api/reports/cohort", "/api/bin-lookup", "/api/upstream/status"]));
});

test("every non-public route method goes through the role-checking wrapper", () => {
  for (const r of routes.filter((x) => !PUBLIC.some((p) => p.test(x.path)))) {
    for (const m of r.methods) expect(m.role, `${m.method} ${r.path}`).not.toBeNull();
  }
});

for (const r of routes.filter((x) => !PUBLIC.some((p) => p.test(x.path)))) {
  for (const { method, role } of r.methods) {
    test(`${method} ${r.path}: 401 anonymous${role === "analyst" || role === "admin" ? ", 403 for a viewer" : ""}`, async ({ baseURL }) => {
      const anon = await playwrightRequest.newContext({ baseURL });
      const res = await anon.fetch(r.path, { method, headers: { "content-type": "application/json" }, data: method === "GET" ? undefined : "{}" });
      expect(res.status()).toBe(401);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe("UnauthorizedError");
      if (role === "analyst" || role === "admin") {
        const viewer = await playwrightRequest.newContext({ baseURL, storageState: authFile("viewer") });
        const v = await viewer.fetch(r.path, { method, headers: { "content-type": "application/json" }, data: method === "GET" ? undefined : "{}" });
        expect(v.status()).toBe(403);
      }
    });
  }
}

test("pages send anonymous visitors to sign in, and keep where they were going", async ({ page }) => {
  for (const path of ["/", "/definitions", "/explore"]) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/login/);
    const url = new URL(page.url());
    expect(url.pathname).toBe("/login");
    expect(url.searchParams.get("callbackUrl")).toBe(path);
  }
});

test("an analyst's report request goes through the queue and equals a direct call to the service", async () => {
  const env = e2eEnv();
  const analyst = await playwrightRequest.newContext({ baseURL: env.dashboardUrl, storageState: authFile("analyst") });
  const body = { start_date: env.endDate.slice(0, 8) + "01", end_date: env.endDate, group_by: ["date"], metrics: ["attempts", "approvals", "revenue"] };
  const bad = await analyst.post("/api/reports/order-summary", { data: { ...body, filters: { product_id: "903" } } });
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { message: string }).message).toContain("product_id");

  const started = await analyst.post("/api/reports/order-summary", { data: body });
  expect([200, 202]).toContain(started.status());
  let job = (await started.json()) as { id?: string; status: { state: string; result?: { data: unknown[]; source: string } } };
  while (job.status.state !== "done") {
    expect(["queued", "fetching"]).toContain(job.status.state);
    await new Promise((r) => setTimeout(r, 200));
    job = (await (await analyst.get(`/api/reports/jobs/${job.id}`)).json()) as typeof job;
  }
  const svc = await playwrightRequest.newContext();
  const token = ((await (await svc.post(`${env.serviceUrl}/api/auth/token`, { data: env.client })).json()) as { data: { access_token: string } }).data.access_token;
  const direct = await svc.post(`${env.serviceUrl}/api/data`, {
    data: body,
    headers: { authorization: `Bearer ${token}`, "x-client-id": env.client.client_id, "x-client-secret": env.client.client_secret },
  });
  expect(job.status.result?.data).toEqual(((await direct.json()) as { data: unknown[] }).data);
  const again = await analyst.post("/api/reports/order-summary", { data: body });
  expect(again.status()).toBe(200);
  expect(((await again.json()) as { status: { result: { source: string } } }).status.result.source).toBe("cache");
});
