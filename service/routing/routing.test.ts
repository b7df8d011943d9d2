// BIN routing over real HTTP (SPEC.md §4): resolution order, selection basics, errors, auth, limits,
// and the decision records.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema, ErrorEnvelopeSchema } from "@/lib/contract";
import { startTestService, type TestService } from "../testing/harness";
import { journalSegments } from "./journal";
import { loadRoutingConfig } from "./loader";
import type { RoutingConfigFile } from "./model";
import { binsByBank } from "./test-helpers";

const rr = (group_id: number, group_name: string, gateways: number[], extra: Partial<RoutingConfigFile["groups"][number]> = {}) => ({
  group_id,
  group_name,
  selection_method: "ROUND_ROBIN" as const,
  members: gateways.map((gateway_id) => ({ gateway_id })),
  ...extra,
});

interface Fixture {
  binA: string;
  binA2: string;
  binJ: string;
  bankA: string;
  binC: string;
  binD: string;
  binE: string;
  binF: string;
  binG: string;
  binH: string;
  binI: string;
  unknownBin: string;
}

async function loadOrThrow(db: Parameters<typeof loadRoutingConfig>[0], config: RoutingConfigFile) {
  const r = await loadRoutingConfig(db, config);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
}

let fx: Fixture;
let svc: TestService;
let answered = 0;

async function route(body: unknown, headers?: Record<string, string>) {
  const res = await svc.post("/api/bin-routing/route", body, headers);
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status === 200) answered++;
  return { status: res.status, body: json, res };
}

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 1, ordersPerDay: 1 },
    env: { ROUTING_RATE_LIMIT: "100000", TOKEN_RATE_LIMIT: "1000" },
    setup: async (db) => {
      const banks = await binsByBank(db);
      const [a, b, c] = banks as [(typeof banks)[number], (typeof banks)[number], (typeof banks)[number]];
      const known = new Set(banks.flatMap((x) => x.bins));
      let unknownBin = "999999";
      while (known.has(unknownBin)) unknownBin = String(Number(unknownBin) - 1);
      fx = {
        binA: a.bins[0]!,
        binA2: a.bins[1]!,
        binJ: a.bins[2]!,
        bankA: a.bank,
        binC: b.bins[0]!,
        binD: b.bins[1]!,
        binE: b.bins[2]!,
        binF: b.bins[3]!,
        binG: b.bins[4]!,
        binH: b.bins[5]!,
        binI: c.bins[0]!,
        unknownBin,
      };
      await loadOrThrow(db, {
        groups: [
          rr(1, "fallback", [1, 2], { is_fallback: true }),
          rr(2, "bin6", [3]),
          rr(3, "bin7", [4]),
          rr(4, "bin8", [5]),
          rr(5, "bankA", [6]),
          rr(6, "tie-old", [7]),
          rr(7, "tie-new", [8]),
          rr(8, "initials only", [9], { cycle_scope: 0 }),
          rr(9, "rebills only", [10], { cycle_scope: 1 }),
          { ...rr(10, "all inactive", []), members: [{ gateway_id: 11, active: false }, { gateway_id: 12, active: false }] },
          rr(11, "behind inactive", [13]),
          { ...rr(12, "partly inactive", []), members: [{ gateway_id: 14 }, { gateway_id: 15, active: false }, { gateway_id: 16 }] },
          rr(13, "bankC rebills", [17], { cycle_scope: 1 }),
          rr(14, "bankC initials", [18], { cycle_scope: 0 }),
          rr(15, "target of disabled rules", [19]),
        ],
        rules: [
          { type: "BIN", rule_name: "A6", bin_prefix: fx.binA, group_id: 2 },
          { type: "BIN", rule_name: "A7", bin_prefix: `${fx.binA}1`, group_id: 3 },
          { type: "BIN", rule_name: "A8", bin_prefix: `${fx.binA}12`, group_id: 4 },
          { type: "BANK", rule_name: "bank A", bank: fx.bankA, group_id: 5 },
          { type: "BIN", rule_name: "J disabled", bin_prefix: fx.binJ, group_id: 15, enabled: false },
          // The newer rule is listed first: created_at decides, not the order in the file.
          { type: "BIN", rule_name: "C new", bin_prefix: fx.binC, group_id: 7, created_at: "2025-02-01T00:00:00Z" },
          { type: "BIN", rule_name: "C old", bin_prefix: fx.binC, group_id: 6, created_at: "2025-01-01T00:00:00Z" },
          { type: "BIN", rule_name: "D initials", bin_prefix: fx.binD, group_id: 8, created_at: "2025-01-01T00:00:00Z" },
          { type: "BIN", rule_name: "D rebills", bin_prefix: fx.binD, group_id: 9, created_at: "2025-03-01T00:00:00Z" },
          { type: "BIN", rule_name: "E disabled", bin_prefix: fx.binE, group_id: 15, enabled: false },
          { type: "BIN", rule_name: "F active", bin_prefix: fx.binF, group_id: 11, created_at: "2025-01-01T00:00:00Z" },
          { type: "BIN", rule_name: "F inactive", bin_prefix: fx.binF, group_id: 10, created_at: "2025-02-01T00:00:00Z" },
          { type: "BIN", rule_name: "G inactive", bin_prefix: fx.binG, group_id: 10 },
          { type: "BIN", rule_name: "H", bin_prefix: fx.binH, group_id: 12 },
          { type: "BANK", rule_name: "bank C initials", bank: c.bank, group_id: 14, created_at: "2025-01-01T00:00:00Z" },
          { type: "BANK", rule_name: "bank C rebills", bank: c.bank, group_id: 13, created_at: "2025-02-01T00:00:00Z" },
        ],
      });
    },
  });
});
afterAll(async () => svc.stop());

describe("resolution (SPEC §4.3)", () => {
  // [name, bin, sales_type, expected group, expected rule_name, is_fallback]
  const cases: [string, (f: Fixture) => string, string | undefined, number, string, boolean][] = [
    ["6-digit BIN rule; an 8-digit rule cannot match a 6-digit bin", (f) => f.binA, undefined, 2, "A6", false],
    ["7-digit prefix beats 6", (f) => `${f.binA}1`, undefined, 3, "A7", false],
    ["8-digit prefix beats 7 and 6", (f) => `${f.binA}12`, "INITIALS", 4, "A8", false],
    ["longest matching prefix (7) for an 8-digit bin", (f) => `${f.binA}13`, undefined, 3, "A7", false],
    ["only the 6-digit prefix matches", (f) => `${f.binA}29`, "REBILLS", 2, "A6", false],
    ["BIN rule beats the BANK rule of the same bank", (f) => f.binA, "REBILLS", 2, "A6", false],
    ["BANK rule by the issuing bank of the first 6 digits", (f) => f.binA2, undefined, 5, "bank A", false],
    ["BANK rule for an 8-digit bin", (f) => `${f.binA2}12`, "INITIALS", 5, "bank A", false],
    ["a disabled BIN rule is skipped (falls to the BANK rule)", (f) => f.binJ, undefined, 5, "bank A", false],
    ["newest created_at wins a tie", (f) => f.binC, undefined, 7, "C new", false],
    ["INITIALS admits scope 0 (not 1)", (f) => f.binD, "INITIALS", 8, "D initials", false],
    ["REBILLS admits scope 1 (not 0)", (f) => f.binD, "REBILLS", 9, "D rebills", false],
    ["no sales type admits any scope: newest wins", (f) => f.binD, undefined, 9, "D rebills", false],
    ["sales_type is case-insensitive", (f) => f.binD, "initials", 8, "D initials", false],
    ["a disabled rule is skipped (falls to the fallback)", (f) => f.binE, undefined, 1, "FALLBACK", true],
    ["a group without active members is skipped for the next rule", (f) => f.binF, undefined, 11, "F active", false],
    ["…or for the fallback", (f) => f.binG, "REBILLS", 1, "FALLBACK", true],
    ["BANK rules: scope then newest (INITIALS)", (f) => f.binI, "INITIALS", 14, "bank C initials", false],
    ["BANK rules: scope then newest (REBILLS)", (f) => f.binI, "REBILLS", 13, "bank C rebills", false],
    ["BANK rules: newest without sales type", (f) => f.binI, undefined, 13, "bank C rebills", false],
    ["no match: fallback", (f) => f.unknownBin, undefined, 1, "FALLBACK", true],
    ["no match (8 digits): fallback", (f) => `${f.unknownBin}00`, "INITIALS", 1, "FALLBACK", true],
  ];

  it.each(cases)("%s", async (_name, bin, salesType, group, ruleName, isFallback) => {
    const { status, body } = await route({ bin: bin(fx), ...(salesType ? { sales_type: salesType } : {}) });
    expect(status).toBe(200);
    const r = BinRoutingResponseSchema.parse(body);
    expect({ group: r.group_id, rule: r.session_info.rule_name, fallback: r.is_fallback }).toEqual({ group, rule: ruleName, fallback: isFallback });
  });

  it("bin_info comes from the BIN table for the first 6 digits, null when unknown", async () => {
    const [row] = await svc.db.all<{ bin: string; bank: string; card_brand: string; card_type: string }>("SELECT * FROM bins WHERE bin = ?", [fx.binA]);
    const known = await route({ bin: `${fx.binA}12` });
    expect(known.body.bin_info).toEqual(row);
    const unknown = await route({ bin: fx.unknownBin });
    expect(unknown.body.bin_info).toBeNull();
  });

  it("inactive members are skipped by the rotation; current_index is the position in the member list", async () => {
    const got = [];
    for (let i = 0; i < 5; i++) got.push(BinRoutingResponseSchema.parse((await route({ bin: fx.binH })).body));
    expect(got.map((r) => r.gateway_id)).toEqual(["14", "16", "14", "16", "14"]);
    expect(got.map((r) => r.session_info.current_index)).toEqual([0, 2, 0, 2, 0]);
    expect(got.map((r) => r.session_info.total_calls)).toEqual([1, 2, 3, 4, 5]);
    expect(got.map((r) => r.session_info.next_gateway_id)).toEqual(["16", "14", "16", "14", "16"]);
    expect(new Set(got.map((r) => r.session_info.total_mids))).toEqual(new Set([2]));
    expect(got[0]).toMatchObject({ group_name: "partly inactive", session_info: { selection_method: "ROUND_ROBIN" } });
  });
});

describe("request validation (400)", () => {
  const bad: [string, unknown, string][] = [
    ["5 digits", { bin: "12345" }, "bin"],
    ["9 digits", { bin: "123456789" }, "bin"],
    ["letters", { bin: "41a720" }, "bin"],
    ["empty", { bin: "" }, "bin"],
    ["missing", {}, "bin"],
    ["a number", { bin: 414720 }, "bin"],
    ["unknown sales_type", { bin: "414720", sales_type: "STRAIGHT" }, "sales_type"],
    ["sales_type of the wrong type", { bin: "414720", sales_type: 1 }, "sales_type"],
    ["a bad e-mail", { bin: "414720", email: "nobody" }, "email"],
    ["customer_id too long", { bin: "414720", customer_id: "x".repeat(129) }, "customer_id"],
    ["an unknown field", { bin: "414720", gateway: "3" }, "gateway"],
  ];
  it.each(bad)("%s", async (_name, body, path) => {
    const { status, body: json } = await route(body);
    expect(status).toBe(400);
    const env = ErrorEnvelopeSchema.parse(json);
    expect(env.error.type).toBe("BadRequestError");
    expect(env.error.details?.map((d) => d.path)).toContain(path);
  });

  it("400 for malformed JSON, 415 for another content type, 405 for GET", async () => {
    expect((await route("{nope")).status).toBe(400);
    const res415 = await fetch(`${svc.url}/api/bin-routing/route`, { method: "POST", headers: { ...svc.authHeaders(), "content-type": "text/plain" }, body: "x" });
    expect(res415.status).toBe(415);
    const res405 = await fetch(`${svc.url}/api/bin-routing/route`, { headers: svc.authHeaders() });
    expect(res405.status).toBe(405);
    expect(res405.headers.get("allow")).toBe("POST");
  });
});

describe("authentication (SPEC §1.1: bearer; client headers optional but checked)", () => {
  it("401 without a token, with a bad token, and with wrong client headers", async () => {
    const bin = { bin: fx.unknownBin };
    const none = await route(bin, {});
    expect(none.status).toBe(401);
    expect(none.res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await route(bin, { authorization: "Bearer nope" })).status).toBe(401);
    expect((await route(bin, { authorization: `Bearer ${svc.token}`, "x-client-id": svc.client.client_id, "x-client-secret": "wrong" })).status).toBe(401);
    expect((await route(bin, { authorization: `Bearer ${svc.token}`, "x-client-id": svc.client.client_id })).status).toBe(401);
    const other = await svc.newClient("other");
    expect((await route(bin, { authorization: `Bearer ${svc.token}`, "x-client-id": other.client_id, "x-client-secret": other.client_secret })).status).toBe(401);
  });

  it("200 with the bearer token alone, and with valid client headers; rate-limit headers on both", async () => {
    const alone = await route({ bin: fx.unknownBin }, { authorization: `Bearer ${svc.token}` });
    expect(alone.status).toBe(200);
    expect(alone.res.headers.get("x-ratelimit-limit")).toBe("100000");
    const full = await route({ bin: fx.unknownBin });
    expect(full.status).toBe(200);
    expect(Number(full.res.headers.get("x-ratelimit-remaining"))).toBe(Number(alone.res.headers.get("x-ratelimit-remaining")) - 1);
  });
});

describe("decision records", () => {
  it("records every answered call with a hash of the e-mail, never the e-mail; the journal is folded at shutdown", async () => {
    const email = "Jane.Doe+routing@Example.COM";
    const r = await route({ bin: fx.binA, sales_type: "initials", customer_id: "cust-42", product_id: "prod-9", email });
    expect(r.status).toBe(200);
    await svc.service.close();
    expect(journalSegments(svc.db.path)).toEqual([]);
    const rows = await svc.db.all("SELECT *, strftime(decided_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS at FROM routing_decisions WHERE customer_id = 'cust-42'");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      bin: fx.binA,
      sales_type: "INITIALS",
      rule_name: "A6",
      is_fallback: false,
      group_id: 2,
      gateway_id: 3,
      product_id: "prod-9",
      email_sha256: createHash("sha256").update(email.toLowerCase()).digest("hex"),
      client_id: svc.client.client_id,
      at: r.body.timestamp,
    });
    expect(JSON.stringify(rows)).not.toMatch(/jane/i);
    expect(svc.logLines.join("\n")).not.toMatch(/jane/i);
    const [count] = await svc.db.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM routing_decisions");
    expect(count?.n).toBe(answered);
    expect(existsSync(svc.db.path)).toBe(true);
  });
});

describe("outages, missing configuration, and the routing rate-limit bucket", () => {
  let svc2: TestService;
  let bin: string;
  let deadBin: string;
  beforeAll(async () => {
    svc2 = await startTestService({
      data: { days: 1, ordersPerDay: 1 },
      env: { ROUTING_RATE_LIMIT: "6", REPORT_RATE_LIMIT: "5" },
      setup: async (db) => {
        const banks = await binsByBank(db);
        bin = banks[0]!.bins[0]!;
        deadBin = banks[1]!.bins[0]!;
        await loadOrThrow(db, {
          groups: [
            { ...rr(1, "dead fallback", []), is_fallback: true, members: [{ gateway_id: 1, active: false }] },
            rr(2, "alive", [2, 3]),
            { ...rr(3, "dead", []), members: [{ gateway_id: 4, active: false }] },
          ],
          rules: [
            { type: "BIN", rule_name: "alive", bin_prefix: bin, group_id: 2 },
            { type: "BIN", rule_name: "dead", bin_prefix: deadBin, group_id: 3 },
            // Skipped (no active member): the 6-digit rule still answers.
            { type: "BIN", rule_name: "dead 7", bin_prefix: `${bin}9`, group_id: 3 },
          ],
        });
      },
    });
  });
  afterAll(async () => svc2.stop());

  it("503 when nothing active matches and the fallback has no active member; its own bucket of 6 per window", async () => {
    const call = async (b: string) => svc2.post("/api/bin-routing/route", { bin: b }, { authorization: `Bearer ${svc2.token}` });
    const ok = await call(bin);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { gateway_id: string }).gateway_id).toBe("2");
    expect((await call(`${bin}9`)).status).toBe(200);
    for (const b of ["000000", deadBin]) {
      const res = await call(b);
      expect(res.status).toBe(503);
      expect(ErrorEnvelopeSchema.parse(await res.json()).error.type).toBe("ServiceUnavailableError");
    }
    for (let i = 0; i < 2; i++) expect((await call(bin)).status).toBe(200);
    const limited = await call(bin);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The reporting bucket is separate.
    const report = await svc2.post("/api/data", { start_date: "2025-07-01", end_date: "2025-07-31", group_by: ["date"] });
    expect(report.status).toBe(200);
  });

  it("503 naming the missing configuration when none is loaded", async () => {
    const empty = await startTestService({ data: false });
    try {
      const res = await empty.post("/api/bin-routing/route", { bin: "414720" });
      expect(res.status).toBe(503);
      expect(ErrorEnvelopeSchema.parse(await res.json()).message).toMatch(/routing load/);
    } finally {
      await empty.stop();
    }
  });
});
