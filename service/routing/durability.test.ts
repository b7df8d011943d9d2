// Continuity across crashes: the real service in a child process is SIGKILLed during a burst of
// routing calls, started again on the same files, and must continue every rotation right after the
// last durably recorded call, having forgotten no call it answered.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema } from "@/lib/contract";
import { createClient } from "../clients";
import { Database } from "../db";
import { generate } from "../data/generator";
import { migrate } from "../data/schema";
import { TokenSigner } from "../http/tokens";
import { TEST_TOKEN_SECRET } from "../testing/harness";
import { journalSegments } from "./journal";
import { loadRoutingConfig } from "./loader";
import type { Member } from "./model";
import { initialState, rotationOf, selectMember } from "./selection";
import { binsByBank, httpPoster, startServiceChild } from "./test-helpers";

const RR: Member[] = [3, 5, 7].map((gatewayId) => ({ gatewayId, weight: 1, active: true }));
const WRR: Member[] = [
  { gatewayId: 11, weight: 5, active: true },
  { gatewayId: 12, weight: 3, active: true },
  { gatewayId: 13, weight: 2, active: true },
];

/** The gateway each call number must get, from a fresh rotation (call 1 first). */
function expectedSequence(method: "ROUND_ROBIN" | "WEIGHTAGE", members: Member[], n: number): number[] {
  const rot = rotationOf(method, members);
  const s = initialState(rot);
  return Array.from({ length: n }, () => members[selectMember(rot, s).memberIndex]!.gatewayId);
}

let dir: string;
let dbPath: string;
let wrrBin: string;
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "routing-durability-"));
  dbPath = join(dir, "service.duckdb");
  const db = await Database.open(dbPath);
  try {
    await migrate(db);
    await generate(db, { days: 1, ordersPerDay: 1, seed: 3, endDate: "2025-07-31" });
    wrrBin = (await binsByBank(db))[0]!.bins[0]!;
    const r = await loadRoutingConfig(db, {
      groups: [
        { group_id: 1, group_name: "rr", selection_method: "ROUND_ROBIN", is_fallback: true, members: RR.map((m) => ({ gateway_id: m.gatewayId })) },
        { group_id: 2, group_name: "wrr", selection_method: "WEIGHTAGE", members: WRR.map((m) => ({ gateway_id: m.gatewayId, weight: m.weight })) },
      ],
      rules: [{ type: "BIN", rule_name: "wrr", bin_prefix: wrrBin, group_id: 2 }],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const client = await createClient(db, "durability");
    token = new TokenSigner(TEST_TOKEN_SECRET, 3600).issue(client.client_id).token;
  } finally {
    db.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const startChild = () => startServiceChild(dbPath);

interface Answer {
  customer: string;
  group: number;
  gateway: number;
  call: number;
}

/** 64 workers call until `killAt` answers have arrived, then the service is SIGKILLed mid-burst. */
async function burstAndKill(killAt: number, round: number): Promise<{ answers: Answer[]; unanswered: Set<string> }> {
  const { child, url, exited } = await startChild();
  const poster = httpPoster(url, { authorization: `Bearer ${token}` }, 64);
  const answers: Answer[] = [];
  const unanswered = new Set<string>();
  let killed = false;
  const worker = async (w: number) => {
    for (let k = 0; ; k++) {
      const customer = `r${round}-w${w}-${k}`;
      try {
        const res = await poster.route({ bin: k % 2 === 0 ? "000000" : wrrBin, customer_id: customer });
        expect(res.status).toBe(200);
        const b = BinRoutingResponseSchema.parse(res.body);
        answers.push({ customer, group: b.group_id, gateway: Number(b.gateway_id), call: b.session_info.total_calls });
        if (answers.length >= killAt && !killed) {
          killed = true;
          child.kill("SIGKILL");
        }
      } catch {
        unanswered.add(customer); // in flight when the process died
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: 64 }, (_, w) => worker(w)));
  await exited;
  poster.close();
  // The calls since start are only in the journal (folding runs every few seconds): a real replay.
  expect(journalSegments(dbPath).length).toBeGreaterThan(0);
  return { answers, unanswered };
}

describe("durability across SIGKILL", () => {
  it("resumes every rotation after the last recorded call; no answered call is forgotten", async () => {
    const allAnswers: Answer[] = [];
    const allUnanswered = new Set<string>();
    for (const round of [1, 2]) {
      const { answers, unanswered } = await burstAndKill(round === 1 ? 1500 : 900, round);
      expect(answers.length).toBeGreaterThanOrEqual(round === 1 ? 1500 : 900);
      allAnswers.push(...answers);
      for (const u of unanswered) allUnanswered.add(u);
    }

    // Restart once more: one call per group continues the sequences; then stop cleanly (folds the journal).
    const { child, url, exited } = await startChild();
    const poster = httpPoster(url, { authorization: `Bearer ${token}` }, 2);
    const after = await Promise.all(
      ["000000", wrrBin].map(async (bin) => BinRoutingResponseSchema.parse((await poster.route({ bin, customer_id: `after-${bin}` })).body)),
    );
    poster.close();
    child.kill("SIGTERM");
    await exited;

    const db = await Database.open(dbPath);
    try {
      const rows = await db.all<{ customer_id: string; group_id: number; gateway_id: number; call_no: number }>(
        "SELECT customer_id, group_id, gateway_id, call_no::INTEGER AS call_no FROM routing_decisions ORDER BY group_id, call_no",
      );
      const recorded = new Map(rows.map((r) => [r.customer_id, r]));
      expect(recorded.size).toBe(rows.length);

      // Every answered call is recorded exactly as answered.
      for (const a of allAnswers) {
        expect(recorded.get(a.customer)).toEqual({ customer_id: a.customer, group_id: a.group, gateway_id: a.gateway, call_no: a.call });
      }
      // Recorded calls that got no answer can only be calls in flight at a kill (decided and made
      // durable, then the process died before the response left).
      const extra = rows.filter((r) => !r.customer_id.startsWith("after-") && !allAnswers.some((a) => a.customer === r.customer_id));
      for (const r of extra) expect(allUnanswered.has(r.customer_id)).toBe(true);
      expect(extra.length).toBeLessThanOrEqual(2 * 64);
      console.log(`durability: ${allAnswers.length} answered, ${extra.length} recorded but cut off by a kill, ${allUnanswered.size} in flight at the kills`);

      for (const [groupId, method, members, post] of [
        [1, "ROUND_ROBIN", RR, after[0]!],
        [2, "WEIGHTAGE", WRR, after[1]!],
      ] as const) {
        const calls = rows.filter((r) => r.group_id === groupId);
        // One unbroken sequence of call numbers, each with the gateway the rotation prescribes.
        const expected = expectedSequence(method, [...members], calls.length);
        expect(calls.map((r) => r.call_no)).toEqual(calls.map((_, i) => i + 1));
        expect(calls.map((r) => r.gateway_id)).toEqual(expected);
        // total_calls after the restarts = calls recorded before them + this one.
        expect(post.session_info.total_calls).toBe(calls.length);
        const answeredHere = allAnswers.filter((a) => a.group === groupId).length;
        expect(post.session_info.total_calls - 1).toBeGreaterThanOrEqual(answeredHere);
      }
    } finally {
      db.close();
    }
  });
});
