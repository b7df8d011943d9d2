// The throwaway ClickHouse harness (service/testing/clickhouse.ts) against real servers, through the
// official client, and what ClickHouse 18.16 (Debian's package) does and does not accept: the SQL
// facts the ClickHouse engine is written against. Skipped only on a machine without the server,
// which .ci/run installs.
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickhouseServerBinary, startTestClickHouse, type TestClickHouse } from "./clickhouse";

const available = clickhouseServerBinary() !== null;
if (!available) console.warn("service/testing/clickhouse.test.ts: no ClickHouse server installed (apt-get install clickhouse-server); skipped");

const connect = (url: string): ClickHouseClient => createClient({ url, log: { level: ClickHouseLogLevel.OFF } });

async function rows<T>(ch: ClickHouseClient, query: string): Promise<T[]> {
  return (await ch.query({ query, format: "JSONEachRow" })).json<T>();
}

/** The error text a failing query gets; 18.16's format, which the client does not parse into a code. */
async function failure(ch: ClickHouseClient, query: string): Promise<string> {
  try {
    await ch.command({ query });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`expected to fail: ${query}`);
}

/** A string literal: 18.16 has no query parameters, so values are escaped into the SQL text. */
const literal = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

const textStream = (chunks: string[]) => Readable.from(chunks, { objectMode: false });

describe.runIf(available)("one ClickHouse server", () => {
  let server: TestClickHouse;
  let ch: ClickHouseClient;

  beforeAll(async () => {
    server = await startTestClickHouse();
    ch = connect(server.url);
  });

  afterAll(async () => {
    await ch?.close();
    await server?.stop();
  });

  it("answers on loopback, keeps its data in its temporary directory, and runs 18.16 in UTC", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.urls).toEqual([server.url]);
    expect(server.cluster).toBeNull();
    expect(await (await fetch(`${server.url}/ping`)).text()).toBe("Ok.\n");
    await ch.command({ query: "CREATE TABLE where_am_i (x UInt8) ENGINE = MergeTree ORDER BY x" });
    const [info] = await rows<{ v: string; tz: string; path: string }>(
      ch,
      "SELECT version() AS v, timezone() AS tz, data_path AS path FROM system.tables WHERE name = 'where_am_i'",
    );
    expect(info?.v).toMatch(/^18\.16\./);
    expect(info?.tz).toMatch(/^(Etc\/)?UTC$/);
    expect(info?.path.startsWith(tmpdir())).toBe(true);
  });

  it("sums Int64 cents and Decimal(18,2) exactly through a MergeTree table and a SummingMergeTree view", async () => {
    await ch.command({
      query: `CREATE TABLE tx (id UInt64, day Date, merchant String, cents Int64, amount Decimal(18,2), issuer Nullable(String))
              ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (merchant, day, id)`,
    });
    await ch.command({
      query: `CREATE TABLE daily (day Date, merchant String, cents Int64, amount Decimal(18,2), n UInt64)
              ENGINE = SummingMergeTree ORDER BY (merchant, day)`,
    });
    // sum(Decimal(18,2)) is Decimal(38,2): without the CAST every insert into tx fails with "Type
    // mismatch for column amount ... while pushing to view" (after tx itself took the rows).
    await ch.command({
      query: `CREATE MATERIALIZED VIEW daily_mv TO daily AS
              SELECT day, merchant, sum(cents) AS cents, CAST(sum(amount) AS Decimal(18,2)) AS amount, count() AS n
              FROM tx GROUP BY day, merchant`,
    });

    // JSONEachRow: Int64 may be a number or a string; Decimal must be a JSON number (18.16 refuses
    // "1.50" with "Cannot parse input").
    await ch.insert({
      table: "tx",
      format: "JSONEachRow",
      values: [
        { id: 1, day: "2026-01-01", merchant: "m1", cents: 150, amount: 1.5, issuer: null },
        { id: 2, day: "2026-01-01", merchant: "m1", cents: "9007199254740993", amount: 0.01, issuer: "Bank A" },
        { id: 3, day: "2026-01-02", merchant: "m2", cents: 999, amount: 9.99, issuer: "Bank B" },
      ],
    });
    // A byte stream of CSV and of TabSeparated text, as an importer would send a file.
    await ch.insert({ table: "tx", format: "CSV", values: textStream(["4,2026-01-02,m2,1,0.01,\\N\n", "5,2026-02-01,m3,250,2.50,\"Bank, C\"\n"]) });
    await ch.insert({ table: "tx", format: "TabSeparated", values: textStream(["6\t2026-02-01\tm3\t-50\t-0.50\t\\N\n"]) });
    await ch.insert({ table: "tx", format: "CSVWithNames", values: textStream(["id,day,merchant,cents,amount,issuer\n7,2026-01-01,m1,1,0.01,Bank A\n"]) });

    // (Aliases are not named like columns here: see "aliases shadow columns" below.)
    const [total] = await rows<{ c: string; a: number; a_text: string; n: string }>(
      ch,
      "SELECT sum(cents) AS c, sum(amount) AS a, toString(sum(amount)) AS a_text, count() AS n FROM tx",
    );
    // Int64/UInt64 come back as JSON strings (output_format_json_quote_64bit_integers=1), Decimal as
    // a bare JSON number (exact only while it fits a double; toString keeps it exact).
    expect(total).toEqual({ c: "9007199254742344", a: 13.52, a_text: "13.52", n: "7" });

    // Before a merge the SummingMergeTree holds one row per insert block: read it with GROUP BY (or FINAL).
    const byGroup = await rows<{ merchant: string; day: string; cents: string; amount: string; n: string }>(
      ch,
      "SELECT merchant, day, sum(cents) AS cents, toString(sum(amount)) AS amount, sum(n) AS n FROM daily GROUP BY merchant, day ORDER BY merchant, day",
    );
    expect(byGroup).toEqual([
      { merchant: "m1", day: "2026-01-01", cents: "9007199254741144", amount: "1.52", n: "3" },
      { merchant: "m2", day: "2026-01-02", cents: "1000", amount: "10.00", n: "2" },
      { merchant: "m3", day: "2026-02-01", cents: "200", amount: "2.00", n: "2" },
    ]);
    const final = await rows<{ merchant: string; cents: string; n: string }>(ch, "SELECT merchant, cents, n FROM daily FINAL ORDER BY merchant, day");
    expect(final.map((r) => [r.merchant, r.cents, r.n])).toEqual([
      ["m1", "9007199254741144", "3"],
      ["m2", "1000", "2"],
      ["m3", "200", "2"],
    ]);
    await ch.command({ query: "OPTIMIZE TABLE daily FINAL" });
    expect(await rows(ch, "SELECT count() AS c FROM daily")).toEqual([{ c: "3" }]);

    // INSERT ... SELECT feeds the view too.
    await ch.command({ query: "INSERT INTO tx SELECT id + 100, day, merchant, cents, amount, issuer FROM tx WHERE merchant = 'm2'" });
    expect(await rows(ch, "SELECT sum(n) AS n FROM daily WHERE merchant = 'm2'")).toEqual([{ n: "4" }]);
  });

  it("pages, sorts Nullable columns NULLS LAST, filters with subqueries", async () => {
    await ch.command({ query: "CREATE TABLE people (id UInt32, name String, city Nullable(String), score Nullable(Int32)) ENGINE = MergeTree ORDER BY id" });
    // Nullable columns are refused in a MergeTree sorting key.
    expect(await failure(ch, "CREATE TABLE bad (city Nullable(String)) ENGINE = MergeTree ORDER BY city")).toContain("Sorting key cannot contain nullable columns");
    await ch.insert({
      table: "people",
      format: "JSONEachRow",
      values: [
        { id: 1, name: "ann", city: "Oslo", score: 10 },
        { id: 2, name: "bob", city: null, score: 30 },
        { id: 3, name: "cid", city: "Bergen", score: null },
        { id: 4, name: "dan", city: "Oslo", score: 20 },
        { id: 5, name: "eve", city: null, score: null },
      ],
    });
    const ids = async (sql: string) => (await rows<{ id: number }>(ch, sql)).map((r) => r.id);

    expect(await ids("SELECT id FROM people ORDER BY score ASC NULLS LAST, id")).toEqual([1, 4, 2, 3, 5]);
    expect(await ids("SELECT id FROM people ORDER BY score DESC NULLS FIRST, id")).toEqual([3, 5, 2, 4, 1]);
    expect(await ids("SELECT id FROM people ORDER BY city ASC NULLS LAST, id")).toEqual([3, 1, 4, 2, 5]);
    expect(await ids("SELECT id FROM people ORDER BY id LIMIT 2 OFFSET 1")).toEqual([2, 3]);
    expect(await ids("SELECT id FROM people ORDER BY id LIMIT 1, 2")).toEqual([2, 3]);
    expect(await ids("SELECT id FROM people WHERE city IS NULL ORDER BY id")).toEqual([2, 5]);
    expect(await ids("SELECT id FROM people WHERE id IN (SELECT id FROM people WHERE city = 'Oslo') ORDER BY id")).toEqual([1, 4]);
    // Not standard SQL: NULLs in the IN set are skipped, and a NULL on the left is simply "not in".
    expect(await ids("SELECT id FROM people WHERE city NOT IN (SELECT city FROM people WHERE id IN (1, 2)) ORDER BY id")).toEqual([2, 3, 5]);
    // Comparisons with NULL are NULL, so WHERE drops those rows as usual.
    expect(await ids("SELECT id FROM people WHERE city != 'Oslo' ORDER BY id")).toEqual([3]);
    expect(await rows(ch, "SELECT id, (SELECT count() FROM people) AS total FROM people WHERE id = 1")).toEqual([{ id: 1, total: "5" }]);
    expect(await rows(ch, "SELECT countIf(city = 'Oslo') AS oslo, sumIf(score, city = 'Oslo') AS s FROM people")).toEqual([{ oslo: "2", s: "30" }]);
  });

  it("joins on one key with USING, and join_use_nulls turns misses into NULLs", async () => {
    await ch.command({ query: "CREATE TABLE bins (bin String, brand String) ENGINE = MergeTree ORDER BY bin" });
    await ch.command({ query: "CREATE TABLE cards (id UInt32, bin String) ENGINE = MergeTree ORDER BY id" });
    await ch.command({ query: "INSERT INTO bins VALUES ('411111', 'VISA'), ('555555', 'MC')" });
    await ch.command({ query: "INSERT INTO cards VALUES (1, '411111'), (2, '000000'), (3, '555555')" });
    const sql = "SELECT id, bin, brand FROM cards LEFT JOIN bins USING (bin) ORDER BY id";
    // Without ANY/ALL the strictness is ALL (join_default_strictness); a miss gets the type's default.
    expect(await rows(ch, sql)).toEqual([
      { id: 1, bin: "411111", brand: "VISA" },
      { id: 2, bin: "000000", brand: "" },
      { id: 3, bin: "555555", brand: "MC" },
    ]);
    const nulls = await ch.query({ query: sql, format: "JSONEachRow", clickhouse_settings: { join_use_nulls: 1 } });
    expect((await nulls.json<{ brand: string | null }>()).map((r) => r.brand)).toEqual(["VISA", null, "MC"]);
    // JOIN ON works for equalities; the right side's key is read through a renamed copy, because
    // selecting the right key column itself of a JOIN ON returns garbage in 18.16 (and has crashed it).
    expect(
      await rows(ch, "SELECT id, b_bin2 AS matched FROM cards ALL LEFT JOIN (SELECT bin AS b_bin, bin AS b_bin2 FROM bins) ON bin = b_bin ORDER BY id"),
    ).toEqual([
      { id: 1, matched: "411111" },
      { id: 2, matched: "" },
      { id: 3, matched: "555555" },
    ]);
    expect(await failure(ch, "SELECT id FROM cards LEFT JOIN bins USING (bin) LEFT JOIN bins AS b2 USING (bin)")).toContain(
      "Support for more than one JOIN in query is not implemented",
    );
  });

  it("aliases shadow columns in the whole SELECT, WHERE included", async () => {
    await ch.command({ query: "CREATE TABLE al (id UInt32, cents Int64) ENGINE = Memory" });
    await ch.command({ query: "INSERT INTO al VALUES (1, 100), (2, 200), (3, 300)" });
    // WHERE cents > 250 compares the alias (cents * 10), not the column: all three rows pass.
    expect(await rows(ch, "SELECT id, cents * 10 AS cents FROM al WHERE cents > 250 ORDER BY id")).toEqual([
      { id: 1, cents: "1000" },
      { id: 2, cents: "2000" },
      { id: 3, cents: "3000" },
    ]);
    // An aggregate aliased to its column's name is fine alone, but any other use of the name then
    // means the aggregate.
    expect(await rows(ch, "SELECT sum(cents) AS cents FROM al")).toEqual([{ cents: "600" }]);
    expect(await failure(ch, "SELECT sum(cents) AS cents, sum(cents) * 2 AS twice FROM al")).toContain("is found inside another aggregate function");
  });

  it("round-trips any string through an escaped literal", async () => {
    const nasty = ["it's", "back\\slash", "\\'", "new\nline\ttab", "nul\0byte", "ünïcødé ✓", "'; DROP TABLE tx; --", "\\"];
    for (const s of nasty) {
      expect(await rows(ch, `SELECT ${literal(s)} AS s, length(s) AS n`)).toEqual([{ s, n: String(Buffer.byteLength(s)) }]);
    }
    // Both '' and \' are a quote inside a literal.
    expect(await rows(ch, "SELECT 'a''b' = 'a\\'b' AS same")).toEqual([{ same: 1 }]);
  });

  it("compares Date columns with string literals and casts the way the engine expects", async () => {
    const [r] = await rows<Record<string, unknown>>(
      ch,
      `SELECT toDate('2026-01-15') BETWEEN '2026-01-01' AND '2026-02-01' AS inside,
              toDate('2026-02-01') BETWEEN '2026-01-01' AND '2026-02-01' AS upper_inclusive,
              CAST(toDecimal64(10.99, 2) AS Int64) AS truncated, toFloat64(toDecimal64(10.5, 2)) AS f,
              CAST(1050 AS Int64) AS i64, intDiv(7, 2) AS q, 1 / 0 AS inf, toStartOfMonth(toDate('2026-03-17')) AS month`,
    );
    // inf and nan are null in JSON (output_format_json_quote_denormals=0).
    expect(r).toEqual({ inside: 1, upper_inclusive: 1, truncated: "10", f: 10.5, i64: "1050", q: 3, inf: null, month: "2026-03-01" });
  });

  it("swaps tables with one RENAME, but a RENAME that fails half way stays half done", async () => {
    await ch.command({ query: "CREATE TABLE live (v UInt8) ENGINE = MergeTree ORDER BY v" });
    await ch.command({ query: "CREATE TABLE staged (v UInt8) ENGINE = MergeTree ORDER BY v" });
    await ch.command({ query: "INSERT INTO live VALUES (1)" });
    await ch.command({ query: "INSERT INTO staged VALUES (2)" });
    expect(await failure(ch, "EXCHANGE TABLES live AND staged")).toContain("Syntax error");
    await ch.command({ query: "RENAME TABLE live TO old, staged TO live" });
    expect(await rows(ch, "SELECT v FROM live")).toEqual([{ v: 2 }]);
    expect(await rows(ch, "SELECT v FROM old")).toEqual([{ v: 1 }]);

    await ch.command({ query: "CREATE TABLE other (v UInt8) ENGINE = Memory" });
    expect(await failure(ch, "RENAME TABLE old TO older, other TO live")).toContain("Table default.live already exists");
    const tables = await rows<{ name: string }>(ch, "SELECT name FROM system.tables WHERE database = 'default' AND name IN ('old', 'older', 'other', 'live') ORDER BY name");
    expect(tables.map((t) => t.name)).toEqual(["live", "older", "other"]);
  });

  it("refuses what 18.16 does not have, with these messages", async () => {
    await ch.command({ query: "CREATE TABLE IF NOT EXISTS s (k String, v Int64) ENGINE = Memory" });
    const cases: [string, string][] = [
      ["WITH c AS (SELECT k FROM s) SELECT * FROM c", "Syntax error"],
      ["SELECT k, sum(v) OVER (PARTITION BY k) FROM s", "Syntax error"],
      ["SELECT count() FILTER (WHERE v > 0) FROM s", "Syntax error"],
      ["SELECT 1 UNION DISTINCT SELECT 2", "Syntax error"],
      ["SELECT 1; SELECT 2", "Multi-statements are not allowed"],
      ["SELECT k FROM s FINAL", "doesn't support FINAL"],
    ];
    for (const [sql, message] of cases) expect(await failure(ch, sql), sql).toContain(message);
    // The client's query_params become param_* settings, which 18.16 does not know.
    await expect(ch.query({ query: "SELECT {x:UInt32} AS x", format: "JSONEachRow", query_params: { x: 1 } })).rejects.toThrow("Unknown setting param_x");
    // WITH <expression> AS <name> (not a subquery) is fine.
    expect(await rows(ch, "WITH 2 AS two SELECT two * 3 AS six")).toEqual([{ six: 6 }]);
  });

  it("surfaces errors as plain Errors with the server's text, also mid-stream with wait_end_of_query", async () => {
    const e = await ch.query({ query: "SELECT nope", format: "JSONEachRow" }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(Error);
    // 18.16 writes "Code: N, e.displayText() = DB::Exception: …" without the "(TYPE)" the client parses.
    expect((e as Error).message).toMatch(/^Code: 47, e\.displayText\(\) = DB::Exception: Unknown identifier: nope/);
    expect((e as { code?: unknown }).code).toBeUndefined();
    // An error after the first rows were sent: with wait_end_of_query the server buffers the result
    // and answers with a real HTTP error instead of appending the error text to the rows. The server
    // closes the connection a cut-off body went out on, and a client that reused it a moment later
    // met "socket hang up" on a busy machine (the service's reads send once more then): each of
    // these two goes out on a connection of its own.
    const late = "SELECT number, throwIf(number = 200000) AS t FROM system.numbers LIMIT 300000";
    const once = createClient({ url: server.url, keep_alive: { enabled: false }, log: { level: ClickHouseLogLevel.OFF } });
    try {
      await expect((await once.query({ query: late, format: "JSONEachRow" })).json()).rejects.toThrow(SyntaxError);
      await expect(once.query({ query: late, format: "JSONEachRow", clickhouse_settings: { wait_end_of_query: 1 } })).rejects.toThrow(/Code: 395/);
    } finally {
      await once.close();
    }
  });

  it("runs exec for raw statements and streams", async () => {
    await ch.command({ query: "CREATE TABLE raw (a UInt32, b String) ENGINE = MergeTree ORDER BY a" });
    const ins = await ch.exec({ query: "INSERT INTO raw FORMAT TabSeparated", values: textStream(["1\tx\n2\ty\n"]) });
    await finished(ins.stream.resume());
    const out = await ch.exec({ query: "SELECT a, b FROM raw ORDER BY a FORMAT CSV" });
    let text = "";
    for await (const chunk of out.stream) text += String(chunk);
    expect(text).toBe('1,"x"\n2,"y"\n');
  });
});

describe.runIf(available)("two ClickHouse shards behind a Distributed table", () => {
  let server: TestClickHouse;
  let nodes: ClickHouseClient[];

  beforeAll(async () => {
    server = await startTestClickHouse({ shards: 2 });
    nodes = server.urls.map(connect);
  });

  afterAll(async () => {
    await Promise.all((nodes ?? []).map((n) => n.close()));
    await server?.stop();
  });

  it("spreads inserts over both shards and reads them back whole from either node", async () => {
    expect(server.urls).toHaveLength(2);
    expect(server.cluster).toBe("two_shards");
    // ON CLUSTER needs ZooKeeper ("DDL background thread is not initialized"): the DDL goes to each node.
    for (const node of nodes) {
      await node.command({ query: "CREATE TABLE tx_local (id UInt64, merchant String, cents Int64, amount Decimal(18,2)) ENGINE = MergeTree ORDER BY (merchant, id)" });
      await node.command({ query: `CREATE TABLE tx AS tx_local ENGINE = Distributed(${server.cluster}, default, tx_local, cityHash64(merchant))` });
    }
    const [a, b] = nodes as [ClickHouseClient, ClickHouseClient];

    const merchants = ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"];
    const values = Array.from({ length: 2000 }, (_, i) => ({ id: i, merchant: merchants[i % merchants.length]!, cents: i * 3, amount: i / 100 }));
    // Synchronous, so the rows are on the shards when insert() returns (the default queues them and
    // sends in the background; 18.16 has no SYSTEM FLUSH DISTRIBUTED).
    await a.insert({ table: "tx", format: "JSONEachRow", values, clickhouse_settings: { insert_distributed_sync: 1 } });

    const expectedCents = values.reduce((s, v) => s + v.cents, 0);
    for (const node of nodes) {
      expect(await rows(node, "SELECT count() AS n, sum(cents) AS cents, toString(sum(amount)) AS amount FROM tx")).toEqual([
        { n: "2000", cents: String(expectedCents), amount: "19990.00" },
      ]);
    }
    const grouped = await rows<{ merchant: string; n: string; cents: string }>(b, "SELECT merchant, count() AS n, sum(cents) AS cents FROM tx GROUP BY merchant ORDER BY merchant");
    expect(grouped).toEqual(
      merchants.map((m) => {
        const mine = values.filter((v) => v.merchant === m);
        return { merchant: m, n: String(mine.length), cents: String(mine.reduce((s, v) => s + v.cents, 0)) };
      }),
    );

    // Each shard holds part of it, whole merchants (the sharding key), and together all of it.
    const local = await Promise.all(nodes.map((n) => rows<{ merchant: string; n: string }>(n, "SELECT merchant, count() AS n FROM tx_local GROUP BY merchant")));
    const counts = local.map((r) => r.reduce((s, x) => s + Number(x.n), 0));
    expect(counts.every((c) => c > 0 && c < 2000)).toBe(true);
    expect(counts.reduce((s, c) => s + c, 0)).toBe(2000);
    const [onA, onB] = local.map((r) => new Set(r.map((x) => x.merchant))) as [Set<string>, Set<string>];
    expect([...onA].filter((m) => onB.has(m))).toEqual([]);
  });

  it("needs GLOBAL IN and aliased scalar subqueries over the Distributed table", async () => {
    const [a] = nodes as [ClickHouseClient];
    expect(await failure(a, "SELECT count() FROM tx WHERE merchant IN (SELECT merchant FROM tx WHERE id < 2)")).toContain("Double-distributed IN/JOIN subqueries is denied");
    expect(await rows(a, "SELECT count() AS n FROM tx WHERE merchant GLOBAL IN (SELECT merchant FROM tx WHERE id < 2)")).toEqual([{ n: "500" }]);
    // A bare scalar subquery column fails on a Distributed table ("Not found column _subqueryN in block");
    // with an alias it works.
    expect(await failure(a, "SELECT id, (SELECT count() FROM tx) FROM tx ORDER BY id LIMIT 1")).toContain("Not found column _subquery");
    expect(await rows(a, "SELECT id, (SELECT count() FROM tx) AS total FROM tx ORDER BY id LIMIT 1")).toEqual([{ id: "0", total: "2000" }]);
    expect(await rows(a, "SELECT merchant, count() AS n FROM tx GROUP BY merchant ORDER BY merchant LIMIT 2 OFFSET 1")).toEqual([
      { merchant: "m1", n: "250" },
      { merchant: "m2", n: "250" },
    ]);
  });
});
