import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Database, type Row } from "../db";
import { CsvParser, parseCsv, readCsvFile, type CsvRecord } from "./csv";
import { GRAINS, grainSql, ROLLUPS, rollupSql } from "../reports/grain";
import { EVENT_FACT_TABLES, eventFactsSql } from "./derived";
import { generate } from "./generator";
import { importDirectory, REPORTED_REJECTIONS, TABLES, type ImportResult } from "./importer";
import { Rejections } from "./importer/rejections";
import { migrate } from "./schema";
import { VALID_IMPORT as VALID, writeCsvDir } from "../testing/import-fixture";

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const ATTEMPT_HEADER =
  "attempt_id,order_id,customer_id,attempted_at,attempt_date,attempt_no,is_cascade,approved,amount,billing_cycle,sales_type,campaign_id,product_id,gateway_id,bin,affid,sub_affid,price_point,initial_date";

/** An attempts.csv row (with attempt_date) for customer 100, overridable by column. */
function attemptRow(over: Record<string, string> = {}): string {
  const base: Record<string, string> = {
    attempt_id: "50",
    order_id: "600",
    customer_id: "100",
    attempted_at: "2025-07-05T10:00:00Z",
    attempt_date: "2025-07-05",
    attempt_no: "1",
    is_cascade: "false",
    approved: "true",
    amount: "10.00",
    billing_cycle: "1",
    sales_type: "Rebills",
    campaign_id: "10",
    product_id: "903",
    gateway_id: "1",
    bin: "414720",
    affid: "",
    sub_affid: "",
    price_point: "4.95",
    initial_date: "2025-07-01",
    ...over,
  };
  return ATTEMPT_HEADER.split(",")
    .map((c) => base[c] ?? "")
    .join(",");
}

let work: string;
let db: Database;

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), "importer-test-"));
  db = await Database.open(join(work, "test.duckdb"), { connections: 2 });
  await migrate(db);
});

afterEach(() => {
  db.close();
  rmSync(work, { recursive: true, force: true });
});

let dirCounter = 0;
function writeDir(files: Record<string, string>): string {
  return writeCsvDir(join(work, `import-${++dirCounter}`), files);
}

async function snapshot(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t.table] = await db.all(`SELECT * FROM ${t.table} ORDER BY ALL`);
  return out;
}

async function count(table: string): Promise<number> {
  const rows = await db.all<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]?.n);
}

function reasonsOf(r: ImportResult, file: string): Map<number, string> {
  return new Map(r.rejections.filter((x) => x.file === file).map((x) => [x.line, x.reason]));
}

/** Imports `files`, expects rejection, and checks the database did not change. */
async function expectRejected(files: Record<string, string>): Promise<ImportResult> {
  const before = await snapshot();
  const r = await importDirectory(db, writeDir(files));
  expect(r.ok).toBe(false);
  expect(r.rejections.length).toBeGreaterThan(0);
  expect(Object.values(r.inserted).every((n) => n === 0)).toBe(true);
  expect(await snapshot()).toEqual(before);
  return r;
}

// ---------------------------------------------------------------------------------------------
// CSV reader
// ---------------------------------------------------------------------------------------------

describe("csv reader", () => {
  it("handles quoted commas, doubled quotes, line breaks and CRLF, with physical line numbers", () => {
    const text = 'a,b,c\r\n1,"x, y","say ""hi"""\r\n2,"two\nlines",z\n\n3,,"" \n';
    const records = parseCsv(text);
    expect(records).toEqual([
      { fields: ["a", "b", "c"], line: 1 },
      { fields: ["1", "x, y", 'say "hi"'], line: 2 },
      { fields: ["2", "two\nlines", "z"], line: 3 },
      // line 5 is empty and skipped
      { fields: ["3", "", " "], line: 6, error: "unexpected text after the closing quote of field 3" },
    ]);
  });

  it("reports malformed quoting and keeps going", () => {
    const records = parseCsv('a,b\n1,x"y\n"open,2\nmore');
    expect(records[1]).toMatchObject({ line: 2, error: expect.stringContaining("quote inside unquoted field 2") });
    expect(records[2]).toMatchObject({ line: 3, error: expect.stringContaining("unterminated quoted field") });
    expect(records).toHaveLength(3);
  });

  it("streams a file in small chunks with the same records, and names the line of bad UTF-8", async () => {
    const text = 'h1,h2\n"é,\n€",x\r\n\n2,"😀"\n3,ü\n';
    const file = join(work, "chunks.csv");
    writeFileSync(file, text);
    for (const highWaterMark of [1, 2, 3, 5, 64]) {
      const out: CsvRecord[] = [];
      await readCsvFile(file, (r) => out.push(r), { highWaterMark });
      expect(out).toEqual(parseCsv(text));
    }
    const bad = Buffer.concat([Buffer.from("h\n1\n\"a\nb\"\n"), Buffer.from([0xe2, 0x82]), Buffer.from("\n")]);
    writeFileSync(file, bad);
    for (const highWaterMark of [1, 4, 64]) {
      await expect(readCsvFile(file, () => undefined, { highWaterMark })).rejects.toMatchObject({ line: 5 });
    }
  });

  it("gives the same records however the input is split into chunks", () => {
    const field = fc.oneof(
      fc.stringMatching(/^[a-z ]{0,4}$/),
      fc.constantFrom('"a,b"', '"q""q"', '"x\ny"', '"x\r\ny"', '""', "é€"),
    );
    const row = fc.array(field, { minLength: 1, maxLength: 4 }).map((fs) => fs.join(","));
    const doc = fc
      .tuple(fc.array(row, { minLength: 1, maxLength: 6 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
      .map(([rows, eol, trailing]) => rows.join(eol) + (trailing ? eol : ""));
    fc.assert(
      fc.property(doc, fc.array(fc.nat(), { maxLength: 5 }), (text, cuts) => {
        const whole = parseCsv(text);
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const out: CsvRecord[] = [];
        const p = new CsvParser((r) => out.push(r));
        let prev = 0;
        for (const c of points) {
          p.push(text.slice(prev, c));
          prev = c;
        }
        p.push(text.slice(prev));
        p.end();
        expect(out).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Importer
// ---------------------------------------------------------------------------------------------

describe("Rejections", () => {
  it("keeps exactly the first rows in file and line order, with all their reasons, whatever order they come in", () => {
    const files = TABLES.slice(0, 3).map((t) => t.file);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 60 })), { maxLength: 300 }), fc.integer({ min: 1, max: 12 }), (adds, limit) => {
        const rejections = new Rejections(limit);
        const reasons = new Map<string, { file: string; line: number; reason: string }>();
        adds.forEach(([f, line], i) => {
          const file = files[f] as string;
          rejections.add(file, line, `r${i}`);
          const k = `${f}:${String(line).padStart(3, "0")}`;
          const prev = reasons.get(k);
          reasons.set(k, prev ? { ...prev, reason: `${prev.reason}; r${i}` } : { file, line, reason: `r${i}` });
        });
        const expected = [...reasons.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).slice(0, limit).map(([, r]) => r);
        expect(rejections.sorted()).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe("importDirectory", () => {
  it("imports a valid directory with exact cents and canonical values", async () => {
    const r = await importDirectory(db, writeDir(VALID));
    expect(r.rejections).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.inserted).toEqual({
      gateways: 2, campaigns: 2, products: 1, bins: 3, customers: 2, attempts: 4, refunds: 1, chargebacks: 1, alerts: 1,
    });
    expect(Object.values(r.skippedDuplicates).every((n) => n === 0)).toBe(true);

    // 19.99 + 0.01 is exactly 20.00
    const sum = await db.all<{ s: string }>("SELECT sum(amount_cents) AS s FROM attempts WHERE attempt_id IN (1, 3)");
    expect(sum[0]?.s).toBe("2000");
    const cpa = await db.all<{ c: string }>("SELECT cpa_cents AS c FROM campaigns WHERE campaign_id = 10");
    expect(cpa[0]?.c).toBe("3500");

    const attempts = await db.all(
      `SELECT attempt_id, attempted_at::VARCHAR AS at, attempt_date, is_cascade, approved, amount_cents, sales_type, affid, sub_affid
       FROM attempts ORDER BY attempt_id`,
    );
    expect(attempts).toEqual([
      { attempt_id: "1", at: "2025-07-01 13:45:00", attempt_date: "2025-07-01", is_cascade: false, approved: true, amount_cents: "1999", sales_type: "Initials", affid: "aff1", sub_affid: null },
      { attempt_id: "2", at: "2025-07-02 09:00:00", attempt_date: "2025-07-02", is_cascade: false, approved: false, amount_cents: "1", sales_type: "Straight Sales", affid: null, sub_affid: null },
      { attempt_id: "3", at: "2025-07-02 09:00:05", attempt_date: "2025-07-02", is_cascade: true, approved: true, amount_cents: "1", sales_type: "Straight Sales", affid: null, sub_affid: null },
      { attempt_id: "4", at: "2025-07-31 10:00:00.25", attempt_date: "2025-07-31", is_cascade: false, approved: true, amount_cents: "8999", sales_type: "Rebills", affid: "aff1", sub_affid: null },
    ]);
    expect(await db.all("SELECT bin, card_brand, card_type FROM bins ORDER BY bin")).toEqual([
      { bin: "012345", card_brand: "AMEX", card_type: "PREPAID" },
      { bin: "414720", card_brand: "VISA", card_type: "DEBIT" },
      { bin: "545454", card_brand: "MASTERCARD", card_type: "CREDIT" },
    ]);
    expect(await db.all("SELECT gateway_alias FROM gateways WHERE gateway_id = 2")).toEqual([{ gateway_alias: 'Backup, "B" MID' }]);
    expect(await db.all("SELECT refund_type FROM refunds")).toEqual([{ refund_type: "Refund CS" }]);
    expect(await db.all("SELECT alert_type FROM alerts")).toEqual([{ alert_type: "ETHOCA" }]);
  });

  it("re-importing the same files inserts nothing and skips every row", async () => {
    const dir = writeDir(VALID);
    expect((await importDirectory(db, dir)).ok).toBe(true);
    const before = await snapshot();
    const r = await importDirectory(db, dir);
    expect(r.ok).toBe(true);
    expect(Object.values(r.inserted).every((n) => n === 0)).toBe(true);
    expect(r.skippedDuplicates).toEqual({
      gateways: 2, campaigns: 2, products: 1, bins: 3, customers: 2, attempts: 4, refunds: 1, chargebacks: 1, alerts: 1,
    });
    expect(await snapshot()).toEqual(before);
  });

  it("inserts only the new rows of a file that overlaps the database", async () => {
    await importDirectory(db, writeDir(VALID));
    const r = await importDirectory(db, writeDir({
      "attempts.csv": [ATTEMPT_HEADER, attemptRow({ attempt_id: "50" }), attemptRow({ attempt_id: "51", order_id: "601" })].join("\n"),
      "products.csv": ["product_id,product_name,product_group", "903,Serum,Skin", "904,Cream,Skin"].join("\n"),
    }));
    expect(r).toMatchObject({ ok: true, inserted: { attempts: 2, products: 1 }, skippedDuplicates: { attempts: 0, products: 1 } });
    expect(await count("attempts")).toBe(6);
    expect(await count("products")).toBe(2);
  });

  it("reports every bad row with its line and reason, and loads nothing", async () => {
    await importDirectory(db, writeDir({ "products.csv": VALID["products.csv"] as string }));
    const { "refunds.csv": _r, "chargebacks.csv": _c, "alerts.csv": _a, ...references } = VALID;
    const r = await expectRejected({
      ...references,
      "attempts.csv": [
        ATTEMPT_HEADER, // 1
        attemptRow({ attempt_id: "50" }), // 2: fine
        attemptRow({ attempt_id: "51", amount: "19.999" }), // 3
        attemptRow({ attempt_id: "52", attempted_at: "2025-02-30T10:00:00Z", attempt_date: "2025-02-30" }), // 4
        attemptRow({ attempt_id: "53", sales_type: "Rebill" }), // 5
        attemptRow({ attempt_id: "54", billing_cycle: "0" }), // 6: cycle 0 with Rebills
        attemptRow({ attempt_id: "55", is_cascade: "true" }), // 7: cascade on attempt 1
        attemptRow({ attempt_id: "50" }), // 8: duplicate id
        attemptRow({ attempt_id: "56", bin: "41472" }), // 9
        attemptRow({ attempt_id: "57", approved: "yes" }), // 10
        "58,1,2", // 11: wrong number of fields
        attemptRow({ attempt_id: "59", attempt_date: "2025-07-06" }), // 12: not attempted_at's date
        attemptRow({ attempt_id: "60", attempted_at: "2025-07-05T10:00:00+02:00" }), // 13: offset
        attemptRow({ attempt_id: "61", gateway_id: "99" }), // 14: unknown gateway
        attemptRow({ attempt_id: "62", amount: "-1.00" }), // 15
        attemptRow({ attempt_id: "63", attempt_no: "0" }), // 16
        attemptRow({ attempt_id: "64", customer_id: "101", initial_date: "2025-07-01" }), // 17: customer's initial date is 07-02
      ].join("\n"),
    });
    const lines = reasonsOf(r, "attempts.csv");
    expect([...lines.keys()]).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect(lines.get(3)).toBe('amount "19.999" has more than 2 decimals');
    expect(lines.get(4)).toContain("2025-02-30");
    expect(lines.get(4)).toContain("not a real calendar date");
    expect(lines.get(5)).toBe('sales_type "Rebill" is not one of Initials, Rebills, Straight Sales');
    expect(lines.get(6)).toContain("billing_cycle is 0 but sales_type is Rebills");
    expect(lines.get(7)).toContain("is_cascade is true but attempt_no is 1");
    expect(lines.get(8)).toBe("attempt_id 50 already appears on line 2");
    expect(lines.get(9)).toBe('bin "41472" is not 6 digits');
    expect(lines.get(10)).toBe('approved "yes" is not a boolean (true, false, 1 or 0)');
    expect(lines.get(11)).toBe("expected 19 fields (as in the header), found 3");
    expect(lines.get(12)).toBe("attempt_date 2025-07-06 is not the date of attempted_at (2025-07-05)");
    expect(lines.get(13)).toContain("UTC offset");
    expect(lines.get(14)).toBe("gateway_id 99 does not exist: not in gateways.csv nor in the database");
    expect(lines.get(15)).toBe('amount "-1.00" must not be negative');
    expect(lines.get(16)).toBe("attempt_no 0 is out of range (1 to 2147483647)");
    expect(lines.get(17)).toBe("initial_date 2025-07-01 differs from customer 101's initial_date 2025-07-02");
    // Only attempts.csv had problems, yet nothing else was loaded either (expectRejected checked the snapshot).
    expect(new Set(r.rejections.map((x) => x.file))).toEqual(new Set(["attempts.csv"]));
  });

  it("counts every bad row of a large bad file and reports the first thousand, in line order", async () => {
    // 2,500 customers with the date in the wrong format (every row), then 1,200 attempts of which
    // each fails the database checks: a missing gateway, and every tenth a missing customer as well.
    const customers = ["customer_id,initial_date,campaign_id,product_id,affid,sub_affid,price_point"];
    for (let i = 0; i < 2500; i++) customers.push(`${1000 + i},01/07/2025,10,903,,,4.95`);
    const attempts = [ATTEMPT_HEADER];
    for (let i = 0; i < 1200; i++) {
      attempts.push(attemptRow({ attempt_id: String(5000 + i), order_id: String(9000 + i), gateway_id: "99", ...(i % 10 === 0 ? { customer_id: "77" } : {}) }));
    }
    const { "customers.csv": _c, "attempts.csv": _a, "refunds.csv": _r, "chargebacks.csv": _cb, "alerts.csv": _al, ...references } = VALID;
    const r = await expectRejected({ ...references, "customers.csv": customers.join("\n"), "attempts.csv": attempts.join("\n") });
    expect(REPORTED_REJECTIONS).toBe(1000);
    // Every rejected row counted once, however many reasons it has.
    expect(r.rejected).toBe(2500 + 1200);
    expect(r.rejections).toHaveLength(1000);
    // customers.csv comes before attempts.csv: its first thousand lines fill the report.
    expect(r.rejections.map((x) => `${x.file}:${x.line}`)).toEqual(Array.from({ length: 1000 }, (_, i) => `customers.csv:${i + 2}`));
    expect(r.rejections[0]?.reason).toContain("01/07/2025");

    // With good customers, the attempts are the first: both reasons of a row that has two.
    const r2 = await expectRejected({ ...references, "customers.csv": VALID["customers.csv"] as string, "attempts.csv": attempts.join("\n") });
    expect(r2.rejected).toBe(1200);
    expect(r2.rejections.map((x) => x.line)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 2));
    const lines = reasonsOf(r2, "attempts.csv");
    expect(lines.get(2)).toContain("gateway_id 99 does not exist");
    expect(lines.get(2)).toContain("customer_id 77 does not exist");
    expect(lines.get(3)).toBe("gateway_id 99 does not exist: not in gateways.csv nor in the database");
  });

  it("counts physical lines through quoted fields with commas, quotes and line breaks", async () => {
    const r = await expectRejected({
      "products.csv": [
        "product_id,product_name,product_group", // 1
        `1,"Serum, large","The ""best""\nline two\r\nline three"`, // 2-4
        `2,"Cream",Skin`, // 5
        `x,"Oil\n(bad id)",Skin`, // 6-7
        `3,Toner,"Skin"`, // 8
        `3,Toner again,Skin`, // 9
      ].join("\n"),
    });
    expect(r.rejections).toEqual([
      { file: "products.csv", line: 6, reason: 'product_id "x" is not an integer id' },
      { file: "products.csv", line: 9, reason: "product_id 3 already appears on line 8" },
    ]);

    // And the same values load exactly once the bad rows are gone.
    const ok = await importDirectory(db, writeDir({
      "products.csv": ["product_id,product_name,product_group", `1,"Serum, large","The ""best""\nline two\r\nline three"`, `2,"Cream",Skin`].join("\n"),
    }));
    expect(ok.ok).toBe(true);
    expect(await db.all("SELECT product_name, product_group FROM products WHERE product_id = 1")).toEqual([
      { product_name: "Serum, large", product_group: 'The "best"\nline two\r\nline three' },
    ]);
  });

  it("reports each repeat of an id against its first row, and only that", async () => {
    const products = (...rows: string[]) => ({ "products.csv": ["product_id,product_name,product_group", ...rows].join("\n") });
    expect((await importDirectory(db, writeDir(products("3,Toner,Skin")))).ok).toBe(true);
    const r = await expectRejected(products("4,Oil,Skin", "3,Toner,Skin", "3,Toner again,Skin", "4,Oil,Skin", "3,Toner,Skin"));
    // Line 4 would also differ from product 3 in the database: a repeated row is reported as a
    // repeat only, as the later rows of the same id never reach the other checks.
    expect(r.rejections).toEqual([
      { file: "products.csv", line: 4, reason: "product_id 3 already appears on line 3" },
      { file: "products.csv", line: 5, reason: "product_id 4 already appears on line 2" },
      { file: "products.csv", line: 6, reason: "product_id 3 already appears on line 3" },
    ]);
  });

  it("rejects a file without a required column", async () => {
    const r = await expectRejected({
      ...VALID,
      "refunds.csv": ["refund_id,attempt_id,refund_date,amount", "1,4,2025-08-05,89.99"].join("\n"),
    });
    expect(r.rejections).toEqual([{ file: "refunds.csv", line: 1, reason: "invalid header: missing required column refund_type" }]);
  });

  it("rejects a file with an unknown column", async () => {
    const r = await expectRejected({
      ...VALID,
      "chargebacks.csv": ["chargeback_id,attempt_id,cb_date,amount,reason_code", "1,1,2025-08-20,19.99,4853"].join("\n"),
      "campaigns.csv": ["campaign_id,campaign_name,campaign_type,cpa_cents", "10,Trial A,Trial,3500"].join("\n"),
    });
    expect(r.rejections).toEqual([
      { file: "campaigns.csv", line: 1, reason: "invalid header: unknown column cpa_cents (money is given in currency units, in the column cpa); missing required column cpa" },
      { file: "chargebacks.csv", line: 1, reason: "invalid header: unknown column reason_code" },
    ]);
  });

  it("accepts references to rows already in the database", async () => {
    const refs = ["gateways.csv", "campaigns.csv", "products.csv", "bins.csv", "customers.csv"];
    expect((await importDirectory(db, writeDir(Object.fromEntries(refs.map((f) => [f, VALID[f] as string]))))).ok).toBe(true);
    expect((await importDirectory(db, writeDir({ "attempts.csv": VALID["attempts.csv"] as string }))).ok).toBe(true);
    const r = await importDirectory(db, writeDir({
      "refunds.csv": VALID["refunds.csv"] as string,
      "alerts.csv": VALID["alerts.csv"] as string,
    }));
    expect(r).toMatchObject({ ok: true, inserted: { refunds: 1, alerts: 1 } });
  });

  it("rejects a refund of a missing attempt, and event rules against the attempt", async () => {
    await importDirectory(db, writeDir(VALID));
    const r = await expectRejected({
      "refunds.csv": [
        "refund_id,attempt_id,refund_date,amount,refund_type",
        "10,999,2025-08-05,1.00,Refund CS", // 2: no such attempt
        "11,4,2025-07-30,1.00,Refund CS", // 3: before the attempt (2025-07-31)
        "12,2,2025-08-05,0.01,Refund Alert", // 4: attempt 2 was declined
        "13,4,2025-08-05,90.00,Refund CS", // 5: more than 89.99
        "14,4,2025-08-05,1.00,Refund", // 6: bad type
      ].join("\n"),
    });
    const lines = reasonsOf(r, "refunds.csv");
    expect(lines.get(2)).toBe("attempt_id 999 does not exist: not in the database (and no attempts.csv was imported)");
    expect(lines.get(3)).toBe("refund_date 2025-07-30 is before the attempt's date 2025-07-31");
    expect(lines.get(4)).toContain("attempt 2 was declined");
    expect(lines.get(5)).toBe("amount 90.00 exceeds the attempt's amount 89.99");
    expect(lines.get(6)).toBe('refund_type "Refund" is not one of Refund Alert, Refund CS');
  });

  it("rejects an impossible date", async () => {
    const r = await expectRejected({
      "customers.csv": ["customer_id,initial_date,campaign_id,product_id,price_point", "100,2025-02-30,10,903,4.95"].join("\n"),
      "campaigns.csv": VALID["campaigns.csv"] as string,
      "products.csv": VALID["products.csv"] as string,
    });
    expect(r.rejections).toEqual([{ file: "customers.csv", line: 2, reason: "initial_date 2025-02-30 is not a real calendar date" }]);
  });

  it("rejects amounts with more than 2 decimals, and takes exact cents from the digits", async () => {
    const r = await expectRejected({
      "campaigns.csv": [
        "campaign_id,campaign_name,campaign_type,cpa",
        "1,A,Trial,0.105",
        "2,B,Trial,1.10",
        "3,C,Trial,1e3",
        "4,D,Trial,.5",
      ].join("\n"),
    });
    expect(r.rejections).toEqual([
      { file: "campaigns.csv", line: 2, reason: 'cpa "0.105" has more than 2 decimals' },
      { file: "campaigns.csv", line: 4, reason: 'cpa "1e3" is not an amount (digits with up to 2 decimals, e.g. 19.99)' },
      { file: "campaigns.csv", line: 5, reason: 'cpa ".5" is not an amount (digits with up to 2 decimals, e.g. 19.99)' },
    ]);
    const ok = await importDirectory(db, writeDir({
      "campaigns.csv": ["campaign_id,campaign_name,campaign_type,cpa", "1,A,Trial,0.1", "2,B,Trial,1.15", "3,C,Trial,4.35", "4,D,Trial,0.29", "5,E,Trial,1234567890.07"].join("\n"),
    }));
    expect(ok.ok).toBe(true);
    expect(await db.all("SELECT campaign_id, cpa_cents FROM campaigns ORDER BY campaign_id")).toEqual([
      { campaign_id: 1, cpa_cents: "10" },
      { campaign_id: 2, cpa_cents: "115" },
      { campaign_id: 3, cpa_cents: "435" },
      { campaign_id: 4, cpa_cents: "29" },
      { campaign_id: 5, cpa_cents: "123456789007" },
    ]);
  });

  it("rejects an existing id with different values", async () => {
    await importDirectory(db, writeDir(VALID));
    const r = await expectRejected({
      "gateways.csv": ["gateway_id,gateway_alias,acquirer,mcc", "1,Main MID,Chase,5968", "2,Backup,Wells Fargo,5999"].join("\n"),
    });
    expect(r.rejections).toEqual([
      { file: "gateways.csv", line: 3, reason: "gateway_id 2 already exists in the database with different values (gateway_alias, mcc)" },
    ]);
  });

  it("reports unexpected files and an empty file", async () => {
    const r = await expectRejected({
      "Attempts.csv": "x",
      "notes.txt": "hello",
      "products.csv": "",
      ".DS_Store": "ignored",
    });
    expect(r.rejections).toEqual([
      { file: "Attempts.csv", line: 0, reason: expect.stringContaining("unexpected file") },
      { file: "notes.txt", line: 0, reason: expect.stringContaining("unexpected file") },
      { file: "products.csv", line: 1, reason: "the file is empty; a header row with the column names is required" },
    ]);
    expect(r.rejections[0]?.reason).toContain("file names are lower-case: attempts.csv");
  });

  it("does not report references to rows that are rejected themselves", async () => {
    const r = await expectRejected({
      ...VALID,
      "gateways.csv": ["gateway_id,gateway_alias,acquirer,mcc", "1,Main MID,Chase,59680", `2,"Backup, ""B"" MID",Wells Fargo,5968`].join("\n"),
    });
    expect(r.rejections).toEqual([{ file: "gateways.csv", line: 2, reason: 'mcc "59680" is not 4 digits' }]);
  });

  it("loads nothing from valid files when another file is rejected", async () => {
    await expectRejected({ ...VALID, "alerts.csv": ["alert_id,attempt_id,alert_date,amount,alert_type", "1,1,2025-08-10,19.99,VISA"].join("\n") });
    for (const t of TABLES) expect(await count(t.table)).toBe(0);
  });

  it("accepts a UTF-8 byte-order mark and rejects a file that is not UTF-8", async () => {
    const dir = writeDir({});
    writeFileSync(join(dir, "products.csv"), Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from("product_id,product_name,product_group\n1,Crème,Skin\n2,Oil\n3,"),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(",Skin\n"),
    ]));
    const before = await snapshot();
    const r = await importDirectory(db, dir);
    expect(r.ok).toBe(false);
    expect(r.rejections).toEqual([{ file: "products.csv", line: 4, reason: "the file is not valid UTF-8 (invalid bytes on line 4)" }]);
    expect(await snapshot()).toEqual(before);

    const ok = await importDirectory(db, writeDir({ "products.csv": "\uFEFFproduct_id,product_name,product_group\n1,Crème,Skin\n" }));
    expect(ok.ok).toBe(true);
    expect(await db.all("SELECT product_name FROM products")).toEqual([{ product_name: "Crème" }]);
  });

  it("imports an empty directory as a no-op and a header-only file as zero rows", async () => {
    expect(await importDirectory(db, writeDir({}))).toEqual({ ok: true, inserted: {}, skippedDuplicates: {}, rejected: 0, rejections: [] });
    expect(await importDirectory(db, writeDir({ "products.csv": "product_id,product_name,product_group\r\n" }))).toEqual({
      ok: true, inserted: { products: 0 }, skippedDuplicates: { products: 0 }, rejected: 0, rejections: [],
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Derived tables after an import
// ---------------------------------------------------------------------------------------------

describe("importDirectory and the grains", () => {
  const ORDER_GRAIN_TABLE = GRAINS.orders.table;
  /**
   * Rows of the event facts and the grains that differ from a build from scratch out of all the
   * facts (both directions).
   */
  async function derivedDrift(): Promise<unknown[]> {
    const expected: [string, string][] = [
      ...Object.entries(EVENT_FACT_TABLES).map(([t, d]): [string, string] => [d.facts, eventFactsSql(t as keyof typeof EVENT_FACT_TABLES)]),
      ...(["orders", "cohort"] as const).map((op): [string, string] => [GRAINS[op].table, grainSql(op)]),
      ...(["orders", "cohort"] as const).map((op): [string, string] => [ROLLUPS[op].table, rollupSql(op, `(${grainSql(op)})`)]),
    ];
    const drift: unknown[] = [];
    for (const [table, full] of expected) {
      drift.push(
        ...(await db.all(`(SELECT * FROM ${table} EXCEPT ALL (${full})) UNION ALL ((${full}) EXCEPT ALL SELECT * FROM ${table})`)).map(
          (row) => ({ table, ...row }),
        ),
      );
    }
    return drift;
  }
  const cents = (v: unknown) => (Number(v) / 100).toFixed(2);

  it("adds each import's facts to the derived tables, ending where a rebuild from scratch would", async () => {
    await generate(db, { days: 60, ordersPerDay: 15, seed: 5, endDate: "2025-06-30" });
    expect(await derivedDrift()).toEqual([]);
    const grainSum = async (m: string, table = ORDER_GRAIN_TABLE) =>
      Number((await db.all<{ s: string }>(`SELECT sum("${m}")::BIGINT AS s FROM ${table}`))[0]?.s);
    const before = {
      cb: await grainSum("cb_count"), refunds: await grainSum("refund_count"), alerts: await grainSum("alert_count"), attempts: await grainSum("attempts"),
      cohortCb: await grainSum("cb_count_by_initial_date", GRAINS.cohort.table), cohortAttempts: await grainSum("attempts_by_initial_date", GRAINS.cohort.table),
    };

    // Old approved attempts without events, to receive a chargeback, a refund and an alert dated
    // weeks later; and one of them as the template of a new attempt after the data's last day.
    const rows = await db.all(
      `SELECT a.*, c.initial_date AS customer_initial FROM attempts a JOIN customers c USING (customer_id)
       WHERE a.approved AND a.attempt_date < '2025-05-20'
         AND a.attempt_id NOT IN (SELECT attempt_id FROM chargebacks UNION ALL SELECT attempt_id FROM refunds UNION ALL SELECT attempt_id FROM alerts)
       ORDER BY a.attempt_id LIMIT 3`,
    );
    expect(rows).toHaveLength(3);
    const [cbOn, refundOn, alertOn] = rows as [Row, Row, Row];
    /** A column as CSV text (null as empty). */
    const text = (row: Row, k: string) => (row[k] === null || row[k] === undefined ? "" : String(row[k]));
    const next = async (col: string, table: string) =>
      String((await db.all<{ n: string }>(`SELECT coalesce(max(${col}), 0)::BIGINT + 1 AS n FROM ${table}`))[0]?.n);
    const later = (row: Row, days: number) => new Date(Date.parse(`${text(row, "attempt_date")}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    const t = cbOn;
    const newAttempt: Record<string, string> = {
      attempt_id: await next("attempt_id", "attempts"), order_id: await next("order_id", "attempts"), customer_id: text(t, "customer_id"),
      attempted_at: "2025-07-02T12:00:00Z", attempt_date: "2025-07-02", attempt_no: "1", is_cascade: "false", approved: "true",
      amount: cents(t.amount_cents), billing_cycle: String(Number(t.billing_cycle) + 5), sales_type: "Rebills", campaign_id: text(t, "campaign_id"),
      product_id: text(t, "product_id"), gateway_id: text(t, "gateway_id"), bin: text(t, "bin"), affid: text(t, "affid"), sub_affid: text(t, "sub_affid"),
      price_point: cents(t.price_point_cents), initial_date: text(t, "customer_initial"),
    };

    // The attempt first, then the events on their own (the usual case: events for older attempts).
    const r1 = await importDirectory(db, writeDir({ "attempts.csv": [ATTEMPT_HEADER, attemptRow(newAttempt)].join("\n") }));
    expect(r1.rejections).toEqual([]);
    expect(r1.inserted).toMatchObject({ attempts: 1 });
    expect(await derivedDrift()).toEqual([]);
    const eventsDir = writeDir({
      "chargebacks.csv": ["chargeback_id,attempt_id,cb_date,amount", `${await next("chargeback_id", "chargebacks")},${text(cbOn, "attempt_id")},${later(cbOn, 35)},${cents(cbOn.amount_cents)}`].join("\n"),
      "refunds.csv": ["refund_id,attempt_id,refund_date,amount,refund_type", `${await next("refund_id", "refunds")},${text(refundOn, "attempt_id")},${later(refundOn, 3)},1.00,Refund CS`].join("\n"),
      "alerts.csv": ["alert_id,attempt_id,alert_date,amount,alert_type", `${await next("alert_id", "alerts")},${text(alertOn, "attempt_id")},${later(alertOn, 20)},${cents(alertOn.amount_cents)},RDR`].join("\n"),
    });
    const r2 = await importDirectory(db, eventsDir);
    expect(r2.rejections).toEqual([]);
    expect(r2.inserted).toMatchObject({ chargebacks: 1, refunds: 1, alerts: 1 });

    expect(await derivedDrift()).toEqual([]);
    expect(await grainSum("cb_count")).toBe(before.cb + 1);
    expect(await grainSum("refund_count")).toBe(before.refunds + 1);
    expect(await grainSum("alert_count")).toBe(before.alerts + 1);
    expect(await grainSum("attempts")).toBe(before.attempts + 1);
    expect(await grainSum("cb_count_by_initial_date", GRAINS.cohort.table)).toBe(before.cohortCb + 1);
    expect(await grainSum("attempts_by_initial_date", GRAINS.cohort.table)).toBe(before.cohortAttempts + 1);

    // The same files again add nothing; a rejected import leaves the derived tables as they were.
    const derived = async () =>
      Promise.all([...Object.values(EVENT_FACT_TABLES).map((d) => d.facts), ORDER_GRAIN_TABLE, GRAINS.cohort.table].map((t) => db.all(`SELECT * FROM ${t} ORDER BY ALL`)));
    const grain = await derived();
    const again = await importDirectory(db, eventsDir);
    expect(again).toMatchObject({ ok: true, inserted: { chargebacks: 0, refunds: 0, alerts: 0 }, skippedDuplicates: { chargebacks: 1, refunds: 1, alerts: 1 } });
    expect(await derived()).toEqual(grain);
    const bad = await importDirectory(db, writeDir({
      "chargebacks.csv": ["chargeback_id,attempt_id,cb_date,amount", `${await next("chargeback_id", "chargebacks")},${text(alertOn, "attempt_id")},2020-01-01,1.00`].join("\n"),
    }));
    expect(bad.ok).toBe(false);
    expect(await derived()).toEqual(grain);
  });
});
