/**
 * The bulk lookup's run against a real HTTP server answering as the dashboard does (a 429 with its
 * retry_after, a 500 with a message): each BIN in order, a refusal for the quota tried once more, any
 * other failure the row's error, a stop that ends the run between lookups; and the CSV it gives.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorFrom } from "@/lib/core/api-client/fetch";
import { BULK_HEADERS, bulkCsvLines, lookUpInOrder, type BulkRow } from "./bulk";
import type { BinAnswer } from "./upstream";

/** How the server answers each BIN, one answer per request in turn (the last one repeats). */
const SCRIPT: Record<string, number[]> = {
  "411111": [200],
  "422222": [429, 200],
  "433333": [429, 429],
  "444444": [500],
};
const asked: string[] = [];
let server: Server;
let base = "";
/** Holds the next request for "455555" until the test lets it go. */
let release: (() => void) | null = null;

const answer = (bin: string): BinAnswer =>
  ({
    gateway_id: 2,
    gateway_names: { "2": "Wells 02" },
    group_id: 7,
    group_name: "Visa debit",
    is_fallback: false,
    session_info: { rule_name: "visa-debit", next_gateway_id: 3, total_calls: 12 },
    bin_info: { bank: `Bank of ${bin}`, card_brand: "VISA", card_type: "DEBIT" },
  }) as unknown as BinAnswer;

beforeAll(async () => {
  server = createServer((req, res) => {
    const bin = new URL(req.url ?? "/", "http://x").searchParams.get("bin") ?? "";
    const n = asked.filter((b) => b === bin).length;
    asked.push(bin);
    const send = (status: number) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      if (status === 200) res.end(JSON.stringify(answer(bin)));
      else if (status === 429) res.end(JSON.stringify({ message: "The lookup allowance is spent for now.", retry_after: 0 }));
      else res.end(JSON.stringify({ message: "The routing service did not answer." }));
    };
    if (bin === "455555") {
      release = () => send(200);
      return;
    }
    const script = SCRIPT[bin] ?? [200];
    send(script[Math.min(n, script.length - 1)]!);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const lookUp = async (bin: string, signal: AbortSignal): Promise<BinAnswer> => {
  const res = await fetch(`${base}/?bin=${bin}`, { signal });
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as BinAnswer;
};

describe("a bulk lookup run", () => {
  it("looks each BIN up in order, tries a quota refusal once more, and keeps any other failure as the row's error", async () => {
    asked.length = 0;
    const rows: BulkRow[] = [];
    const { stopped } = await lookUpInOrder(["411111", "422222", "433333", "444444"], lookUp, new AbortController().signal, (r) => rows.push(r));
    expect(stopped).toBe(false);
    expect(asked).toEqual(["411111", "422222", "422222", "433333", "433333", "444444"]);
    expect(rows.map((r) => [r.n, r.bin, r.result?.bin_info?.bank ?? null, r.error ?? null])).toEqual([
      [1, "411111", "Bank of 411111", null],
      [2, "422222", "Bank of 422222", null],
      [3, "433333", null, "The lookup allowance is spent for now."],
      [4, "444444", null, "The routing service did not answer."],
    ]);
  });

  it("stops between lookups: the lookup under way is dropped and nothing after it is asked", async () => {
    asked.length = 0;
    const rows: BulkRow[] = [];
    const controller = new AbortController();
    const run = lookUpInOrder(["411111", "455555", "422222"], lookUp, controller.signal, (r) => rows.push(r));
    await expect.poll(() => release !== null).toBe(true);
    controller.abort();
    release!();
    expect(await run).toEqual({ stopped: true });
    expect(rows.map((r) => r.bin)).toEqual(["411111"]);
    expect(asked).toEqual(["411111", "455555"]);
  });

  it("gives a CSV stating the question above a row per BIN", async () => {
    const rows: BulkRow[] = [
      { n: 1, bin: "411111", result: answer("411111") },
      { n: 2, bin: "433333", error: "The lookup allowance is spent for now." },
    ];
    const lines = bulkCsvLines(
      { salesType: "", exportedAt: "2026-11-30 09:00 (UTC)", ranAs: "preview", unused: [{ token: "12ab", reason: "not digits" }], evidence: null },
      rows,
      (bin) => (bin === "411111" ? "Waiting for the report…" : ""),
    );
    const headerAt = lines.findIndex((l) => l[0] === "#");
    expect(lines.slice(0, headerAt)).toEqual([
      ["Report", "Bulk BIN lookup"],
      ["Sales type", "Any"],
      ["Exported at", "2026-11-30 09:00 (UTC)"],
      ["Lookup", expect.any(String)],
      ["Note", "Previews: no rotation advanced and nothing was recorded."],
      ["Not looked up", "12ab (not digits)"],
      [],
    ]);
    expect(lines[headerAt]).toEqual([...BULK_HEADERS]);
    const col = (name: (typeof BULK_HEADERS)[number]) => BULK_HEADERS.indexOf(name);
    const [first, second] = lines.slice(headerAt + 1);
    expect([first![col("BIN")], first![col("Group")], first![col("Fallback")], first![col("Issuer")], first![col("Best gateway, last 90 days")], first![col("Error")]]).toEqual([
      "411111",
      "Visa debit (#7)",
      "No",
      "Bank of 411111",
      "Waiting for the report…",
      null,
    ]);
    expect([second![col("BIN")], second![col("Gateway")], second![col("Best gateway, last 90 days")], second![col("Error")]]).toEqual(["433333", null, null, "The lookup allowance is spent for now."]);
  });
});
