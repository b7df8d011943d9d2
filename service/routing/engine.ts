/**
 * The routing call (SPEC.md §4): resolve the BIN to a group, pick a member, advance the group's state,
 * make the decision durable, answer. Resolution and selection run synchronously on the event loop, so
 * concurrent calls see a strict sequence per group; the await comes only after the state has moved.
 */
import { createHash } from "node:crypto";
import { type BinRoutingRequest, type BinRoutingResponse } from "@/lib/contract/schemas";
import { ApiError } from "@/lib/contract/errors";
import type { Database } from "../db";
import type { Logger } from "../http/log";
import { replaceGroupState, storedGroupState } from "./group-state";
import { foldJournal, RoutingJournal, type DecisionRecord, type JournalOptions, type StateRecord } from "./journal";
import { selectMember, type Pick } from "./selection";
import { RoutingTable } from "./table";

export interface RoutingDecision {
  response: BinRoutingResponse;
  record: DecisionRecord;
}

export function emailHash(email: string): string {
  return createHash("sha256").update(email.toLowerCase(), "utf8").digest("hex");
}

export class RoutingEngine {
  private constructor(
    readonly table: RoutingTable,
    private journal: RoutingJournal | null,
  ) {}

  /** Replays any journal a crash left, loads configuration and state, and opens the journal. */
  static async open(db: Database, logger: Logger, opts: Omit<JournalOptions, "log"> = {}): Promise<RoutingEngine> {
    const log: JournalOptions["log"] = (level, msg, fields) => (level === "error" ? logger.error(msg, fields) : logger.info(msg, fields));
    // Replay what a previous process left first, so the state read below includes every answered call.
    const replayed = await foldJournal(db);
    if (replayed.batches > 0 || replayed.tornTail) {
      logger.info("routing journal replayed", { batches: replayed.batches, decisions: replayed.decisions, torn_tail: replayed.tornTail });
    }
    const { table, resetGroups } = await RoutingTable.load(db);
    const engine = new RoutingEngine(table, null);
    if (resetGroups.length > 0) await engine.persistStates(db, resetGroups);
    const journal = await RoutingJournal.open(db, (id) => engine.snapshot(id), { ...opts, log });
    engine.journal = journal;
    logger.info("routing loaded", {
      groups: table.groups.size,
      fallback: table.fallback?.id ?? null,
      durable_seq: journal.durableSeq,
    });
    return engine;
  }

  private snapshot(groupId: number): StateRecord {
    const s = this.table.groups.get(groupId)!.state;
    return { g: groupId, n: s.totalCalls, p: s.position, c: [...s.credits], r: s.randomNext };
  }

  /** Writes the state rows of groups whose state was (re)initialised at load. */
  private async persistStates(db: Database, groupIds: readonly number[]): Promise<void> {
    await db.transaction(async (tx) => {
      for (const id of groupIds) {
        const g = this.table.groups.get(id)!;
        await replaceGroupState(tx, storedGroupState(id, g.signature, g.state));
      }
    });
  }

  private resolveOrRefuse(req: BinRoutingRequest) {
    const info = this.table.binInfo(req.bin);
    const resolution = this.table.resolve(req.bin, req.sales_type, info);
    if (!resolution) {
      throw new ApiError(
        503,
        this.table.fallback
          ? "No gateway is available: no matching group has an active member and the fallback group has none"
          : "No routing configuration is loaded; an operator must load one with `service:cli routing load`",
      );
    }
    return { info, ...resolution };
  }

  private answer(r: ReturnType<RoutingEngine["resolveOrRefuse"]>, pick: Pick, totalCalls: number, now: Date): BinRoutingResponse {
    const { group, info } = r;
    return {
      success: true,
      gateway_id: group.gatewayIds[pick.memberIndex]!,
      group_id: group.id,
      group_name: group.name,
      is_fallback: r.isFallback,
      timestamp: now.toISOString(),
      session_info: {
        selection_method: group.method,
        rule_name: r.ruleName,
        current_index: pick.memberIndex,
        total_calls: totalCalls,
        total_mids: group.rotation.active.length,
        next_gateway_id: group.gatewayIds[pick.nextMemberIndex]!,
      },
      bin_info: info ? { bin: info.bin, bank: info.bank, card_brand: info.card_brand, card_type: info.card_type } : null,
    };
  }

  /**
   * What the next routed call for this request would get, decided on a copy of the group's state:
   * no rotation advances, no counter moves, nothing is journaled (the preview extension).
   */
  preview(req: BinRoutingRequest, now: Date): BinRoutingResponse {
    const r = this.resolveOrRefuse(req);
    const s = r.group.state;
    const copy = { ...s, credits: [...s.credits] };
    const pick = selectMember(r.group.rotation, copy);
    return this.answer(r, pick, copy.totalCalls, now);
  }

  /** Decides synchronously (advancing the group's state) and returns the answer and its record. */
  decide(req: BinRoutingRequest, clientId: string | null, now: Date): RoutingDecision {
    const r = this.resolveOrRefuse(req);
    const { group, ruleName, isFallback } = r;
    const pick = selectMember(group.rotation, group.state);
    const response = this.answer(r, pick, group.state.totalCalls, now);
    const record: DecisionRecord = {
      t: now.getTime(),
      b: req.bin,
      r: ruleName,
      f: isFallback,
      g: group.id,
      w: group.members[pick.memberIndex]!.gatewayId,
      n: group.state.totalCalls,
    };
    if (req.sales_type) record.s = req.sales_type;
    if (req.customer_id !== undefined) record.c = req.customer_id;
    if (req.product_id !== undefined) record.p = req.product_id;
    if (req.email !== undefined) record.e = emailHash(req.email);
    if (clientId) record.k = clientId;
    return { response, record };
  }

  /** Decides, waits until the decision is durable, and returns the answer. */
  async route(req: BinRoutingRequest, clientId: string | null, now: Date): Promise<BinRoutingResponse> {
    if (!this.journal) throw new ApiError(503, "Routing is shutting down");
    const { response, record } = this.decide(req, clientId, now);
    try {
      await this.journal.append(record);
    } catch (e) {
      // The journal's own words (file paths, system errors) go to the log with the request id only.
      throw new ApiError(503, "Routing is unavailable: the decision could not be recorded durably. Try again shortly; quote the request id if it persists.").withInternal(e);
    }
    return response;
  }

  /** Flushes and folds the journal into the database; call before closing the database. */
  async close(): Promise<void> {
    const j = this.journal;
    this.journal = null;
    await j?.close();
  }
}
