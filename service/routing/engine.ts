/**
 * The routing call (SPEC.md §4): resolve the BIN to a group, pick a member, advance the group's state,
 * make the decision durable, answer. Resolution and selection run synchronously on the event loop, so
 * concurrent calls see a strict sequence per group; the await comes only after the state has moved.
 */
import { createHash } from "node:crypto";
import { type BinRoutingRequest, type BinRoutingResponse, type RoutingDecision as PeekedDecision, type RoutingPreview } from "@/lib/contract/schemas";
import { ApiError } from "@/lib/contract/errors";
import type { Database } from "../db";
import type { Logger } from "../http/log";
import { replaceGroupState, storedGroupState } from "./group-state";
import { foldJournal, RoutingJournal, type DecisionRecord, type JournalOptions, type StateRecord } from "./journal";
import { checkAgainstReference, ensureBaseVersion, parseRoutingConfig, readReferenceData, type LoadProblem, type ReferenceData, type VersionAuthor } from "./loader";
import type { RoutingConfig } from "./model";
import { peekNext, selectMember, type Pick } from "./selection";
import { RoutingTable, type SalesType } from "./table";
import { carryRotation, completeConfig, selectVersions, type ConfigVersion, type RotationOutcome, type SignedState } from "./versions";

export interface RoutingDecision {
  response: BinRoutingResponse;
  record: DecisionRecord;
}

/**
 * The rule, group and gateway a routing call for `bin` would get from `table` now, decided on a copy
 * of the group's state; null where the call would answer 503 (nothing with an active member).
 */
export function peekDecision(table: RoutingTable, bin: string, salesType: SalesType): PeekedDecision | null {
  const r = table.resolve(bin, salesType);
  if (!r) return null;
  const s = r.group.state;
  const pick = selectMember(r.group.rotation, { ...s, credits: [...s.credits] });
  const m = r.matched;
  const reason =
    m.type === "BIN"
      ? `BIN prefix ${m.prefix} matches rule "${r.ruleName}"`
      : m.type === "BANK"
        ? `issuing bank ${m.bank} matches rule "${r.ruleName}"`
        : `no enabled rule with an active member matches${salesType ? ` for ${salesType}` : ""}: the fallback group`;
  return {
    rule_id: r.ruleId,
    rule_name: r.ruleName,
    matched_by: m.type,
    is_fallback: r.isFallback,
    group_id: r.group.id,
    group_name: r.group.name,
    gateway_id: r.group.gatewayIds[pick.memberIndex]!,
    reason,
  };
}

export function emailHash(email: string): string {
  return createHash("sha256").update(email.toLowerCase(), "utf8").digest("hex");
}

/** The outcome of validating or applying a configuration. */
export type ConfigOutcome =
  | { ok: true; version: ConfigVersion }
  | { ok: false; status: 400 | 404 | 409; message: string; problems: LoadProblem[] };

export class RoutingEngine {
  /** Replaced whole by `applyConfig`; a call reads it once, so it sees exactly one version. */
  private current: RoutingTable;
  /** Every version, oldest first; the last one is live. */
  private versions: ConfigVersion[];
  /** Applies run one after another, so each validates against and numbers after the one before. */
  private applying: Promise<unknown> = Promise.resolve();

  private constructor(
    table: RoutingTable,
    versions: ConfigVersion[],
    /** Read once: gateways and BINs change only by import or generation, never while the service holds the file. */
    private readonly reference: ReferenceData,
    private journal: RoutingJournal | null,
  ) {
    this.current = table;
    this.versions = versions;
  }

  get table(): RoutingTable {
    return this.current;
  }

  /** The live version (null before any configuration was loaded). */
  get liveVersion(): ConfigVersion | null {
    return this.versions[this.versions.length - 1] ?? null;
  }

  /** Every version, oldest first. */
  get allVersions(): readonly ConfigVersion[] {
    return this.versions;
  }

  /** Each group's calls answered and the gateway its next call gets. */
  groupStatus(): { group_id: number; total_calls: number; next_gateway_id: string | null }[] {
    return [...this.current.groups.values()].map((g) => {
      const next = peekNext(g.rotation, g.state);
      return { group_id: g.id, total_calls: g.state.totalCalls, next_gateway_id: next === null ? null : (g.gatewayIds[next] ?? null) };
    });
  }

  /** Every check a load makes, and what the change would do to each group's rotation; changes nothing. */
  validateConfig(input: unknown): { problems: LoadProblem[]; config: RoutingConfig | null; rotation: RotationOutcome[] } {
    const { config, problems, raw } = parseRoutingConfig(input);
    const all = raw === undefined ? problems : [...problems, ...checkAgainstReference(this.reference, raw)];
    if (!config || all.length > 0) return { problems: all, config: null, rotation: [] };
    return { problems: [], config, rotation: carryRotation(this.signedStates(), config).rotation };
  }

  private signedStates(): Map<number, SignedState> {
    return new Map([...this.current.groups.values()].map((g) => [g.id, { signature: g.signature, state: g.state }]));
  }

  /**
   * Validates `input` like a loaded file and, with no problem at all, makes it the live version:
   * the new table is built, journaled and swapped in within one synchronous step, so every routing
   * call is decided under exactly one version, and none waits or fails for the change. Resolves once
   * the version is durable.
   */
  applyConfig(input: unknown, by: VersionAuthor & { expectedVersion?: number }): Promise<ConfigOutcome> {
    const run = this.applying.then(() => this.applyNow(input, by));
    this.applying = run.catch(() => undefined);
    return run;
  }

  /** Applies version `version` again (default: the one before the live one) as a new version. */
  restoreConfig(version: number | undefined, by: VersionAuthor & { expectedVersion?: number }): Promise<ConfigOutcome> {
    const run = this.applying.then(() => {
      const live = this.liveVersion;
      const target = version ?? (live ? live.version - 1 : 0);
      const found = this.versions.find((v) => v.version === target);
      if (!found) {
        const message = version === undefined ? "There is no previous version to restore" : `No configuration version ${version}`;
        return { ok: false as const, status: 404 as const, message, problems: [] };
      }
      return this.applyNow(found.config, { ...by, restoredFrom: found.version });
    });
    this.applying = run.catch(() => undefined);
    return run;
  }

  private async applyNow(input: unknown, by: VersionAuthor & { expectedVersion?: number }): Promise<ConfigOutcome> {
    const journal = this.journal;
    if (!journal) throw new ApiError(503, "Routing is shutting down");
    const live = this.liveVersion?.version ?? 0;
    if (by.expectedVersion !== undefined && by.expectedVersion !== live) {
      return { ok: false, status: 409, message: `The live configuration is version ${live}, not ${by.expectedVersion}; reload it and apply your change again`, problems: [] };
    }
    const { problems, config: parsed } = this.validateConfig(input);
    if (!parsed) return { ok: false, status: 400, message: `The configuration has ${problems.length} problem${problems.length === 1 ? "" : "s"}; nothing was changed`, problems };

    // A journal that takes nothing more would leave a swapped table that no restart remembers.
    if (journal.unavailable) throw new ApiError(503, "Routing is unavailable: changes cannot be recorded durably until the service restarts");
    // From validation to the swap nothing awaits: no routing call runs in between.
    const now = new Date();
    const config = completeConfig(parsed, now.getTime());
    const { states, rotation } = carryRotation(this.signedStates(), config);
    const version: ConfigVersion = {
      version: live + 1,
      created_at: now.toISOString(),
      author: by.author,
      reason: by.reason,
      client_id: by.clientId ?? null,
      restored_from: by.restoredFrom ?? null,
      config,
      rotation,
    };
    const table = this.current.withConfig(config, states);
    const durable = journal.appendConfig({
      version,
      states: [...table.groups.values()].map((g) => ({ g: g.id, sig: g.signature, n: g.state.totalCalls, p: g.state.position, c: [...g.state.credits], r: g.state.randomNext })),
    });
    this.current = table;
    this.versions = [...this.versions, version];
    try {
      await durable;
    } catch (e) {
      throw new ApiError(503, "The configuration could not be recorded durably; routing is refused until the service restarts. Quote the request id.").withInternal(e);
    }
    return { ok: true, version };
  }

  /** Replays any journal a crash left, loads configuration and state, and opens the journal. */
  static async open(db: Database, logger: Logger, opts: Omit<JournalOptions, "log"> = {}): Promise<RoutingEngine> {
    const log: JournalOptions["log"] = (level, msg, fields) => (level === "error" ? logger.error(msg, fields) : logger.info(msg, fields));
    // Replay what a previous process left first, so the state read below includes every answered call.
    const replayed = await foldJournal(db);
    if (replayed.batches > 0 || replayed.tornTail) {
      logger.info("routing journal replayed", { batches: replayed.batches, decisions: replayed.decisions, torn_tail: replayed.tornTail });
    }
    await ensureBaseVersion(db);
    const { table, resetGroups } = await RoutingTable.load(db);
    const engine = new RoutingEngine(table, await selectVersions(db), await readReferenceData(db), null);
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
    const s = this.current.groups.get(groupId)!.state;
    return { g: groupId, n: s.totalCalls, p: s.position, c: [...s.credits], r: s.randomNext };
  }

  /** Writes the state rows of groups whose state was (re)initialised at load. */
  private async persistStates(db: Database, groupIds: readonly number[]): Promise<void> {
    await db.transaction(async (tx) => {
      for (const id of groupIds) {
        const g = this.current.groups.get(id)!;
        await replaceGroupState(tx, storedGroupState(id, g.signature, g.state));
      }
    });
  }

  private resolveOrRefuse(req: BinRoutingRequest) {
    const table = this.current;
    const info = table.binInfo(req.bin);
    const resolution = table.resolve(req.bin, req.sales_type, info);
    if (!resolution) {
      throw new ApiError(
        503,
        table.fallback
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

  /**
   * What the routing call would answer for each BIN under the live configuration and under `config`
   * (absent: the live one), as a peek on copies of the state: no rotation advances, no counter moves,
   * nothing is journalled. The proposed table is built exactly as an apply builds it (every check,
   * then the rotation rule from the live states) but never swapped in. One synchronous step, so both
   * sides see the same live version.
   */
  previewConfig(config: unknown, bins: readonly string[], salesType: SalesType): RoutingPreview {
    const live = this.current;
    let proposed: RoutingTable | null = live;
    let problems: LoadProblem[] = [];
    if (config !== undefined) {
      const checked = this.validateConfig(config);
      problems = checked.problems;
      proposed = checked.config ? live.withConfig(completeConfig(checked.config, Date.now()), carryRotation(this.signedStates(), checked.config).states) : null;
    }
    return {
      live_version: this.liveVersion?.version ?? 0,
      proposed_valid: problems.length === 0,
      problems,
      rows: bins.map((bin) => ({ bin, live: peekDecision(live, bin, salesType), proposed: proposed && peekDecision(proposed, bin, salesType) })),
    };
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
