/**
 * Loading and showing the routing configuration (`service:cli routing load|show`, docs/routing.md).
 * A load validates everything first (the file's shape, then what needs the database: gateways and
 * banks) and replaces the configuration in one transaction only when there is no problem at all.
 * Each load is a new version of the configuration (versions.ts, which also holds the rotation rule).
 */
import type { ErrorDetail } from "@/lib/contract/schemas";
import type { Database } from "../db";
import { replaceAllGroupStates, rotationState, selectGroupStates, storedGroupState } from "./group-state";
import { foldJournal } from "./journal";
import { checkAgainstReference, groupSignature, parseRoutingConfig, SCOPE_NAMES, type CycleScope, type ReferenceData, type RoutingConfig } from "./model";
import { peekNext, rotationOf } from "./selection";
import { carryRotation, completeConfig, insertVersion, membersOf, selectVersions, writeConfigTables, type RotationOutcome } from "./versions";

export { checkAgainstReference, parseRoutingConfig, type ReferenceData };

export type LoadProblem = ErrorDetail;

export type LoadResult =
  | { ok: true; version: number; groups: number; rules: number; kept: number[]; restarted: number[]; rotation: RotationOutcome[] }
  | { ok: false; problems: LoadProblem[] };

export async function readReferenceData(db: Database): Promise<ReferenceData> {
  const [gateways, banks] = await Promise.all([
    db.all<{ gateway_id: number }>("SELECT gateway_id FROM gateways"),
    db.all<{ bank: string }>("SELECT DISTINCT bank FROM bins"),
  ]);
  return { gateways: new Set(gateways.map((r) => r.gateway_id)), banks: banks.map((r) => r.bank) };
}

export async function checkAgainstDatabase(db: Database, input: unknown): Promise<LoadProblem[]> {
  return checkAgainstReference(await readReferenceData(db), input);
}

/** Who applies a configuration and why, as recorded with its version. */
export interface VersionAuthor {
  author: string;
  reason: string;
  clientId?: string | null;
  restoredFrom?: number | null;
}

/**
 * Records the configuration in the tables as version 1 when there is one but no version yet (a
 * database from before configurations were versioned), so the history starts with what was live.
 */
export async function ensureBaseVersion(db: Database): Promise<void> {
  if ((await selectVersions(db)).length > 0) return;
  const { config } = await readRoutingConfig(db);
  if (config.groups.length === 0) return;
  const now = new Date().toISOString();
  await db.transaction((tx) =>
    insertVersion(tx, {
      version: 1,
      created_at: now,
      author: "system",
      reason: "configuration in place before versions were recorded",
      client_id: null,
      restored_from: null,
      config: completeConfig(config, Date.parse(now)),
      rotation: [],
    }),
  );
}

/**
 * Validates `input` and, when there is no problem, replaces the configuration as a new version. Any
 * journal a stopped service left is folded in first, so the state carried over is complete.
 */
export async function loadRoutingConfig(db: Database, input: unknown, opts: { now?: Date } & Partial<VersionAuthor> = {}): Promise<LoadResult> {
  const { config: parsed, problems, raw } = parseRoutingConfig(input);
  if (raw === undefined) return { ok: false, problems };
  const all = [...problems, ...(await checkAgainstDatabase(db, raw))];
  if (!parsed || all.length > 0) return { ok: false, problems: all };

  await foldJournal(db);
  await ensureBaseVersion(db);
  const now = opts.now ?? new Date();
  const config = completeConfig(parsed, now.getTime());
  const versions = await selectVersions(db);
  const version = (versions[versions.length - 1]?.version ?? 0) + 1;
  let rotation: RotationOutcome[] = [];
  await db.transaction(async (tx) => {
    const old = await selectGroupStates(tx);
    const before = new Map([...old.values()].map((s) => [s.groupId, { signature: s.signature, state: rotationState(s) }]));
    const carried = carryRotation(before, config);
    rotation = carried.rotation;
    await writeConfigTables(tx, config);
    await replaceAllGroupStates(
      tx,
      [...carried.states.entries()].map(([id, s]) => storedGroupState(id, s.signature, s.state)),
    );
    await insertVersion(tx, {
      version,
      created_at: now.toISOString(),
      author: opts.author ?? "routing load",
      reason: opts.reason ?? "loaded from a file",
      client_id: opts.clientId ?? null,
      restored_from: opts.restoredFrom ?? null,
      config,
      rotation,
    });
  });
  const ids = (o: RotationOutcome["outcome"]) => rotation.filter((r) => r.outcome === o).map((r) => r.group_id);
  return { ok: true, version, groups: config.groups.length, rules: config.rules.length, kept: ids("kept"), restarted: ids("reset"), rotation };
}

// ---------------------------------------------------------------------------------------------
// Reading back

export interface GroupStatus {
  group_id: number;
  total_calls: number;
  next_gateway_id: string | null;
}

/**
 * The stored configuration in the file format (loadable as is), plus each group's state as of the
 * tables (the CLI folds any leftover journal first: `foldJournal`).
 */
export async function readRoutingConfig(db: Database): Promise<{ config: RoutingConfig; status: GroupStatus[] }> {
  const groups = await db.all<{ group_id: number; group_name: string; selection_method: RoutingConfig["groups"][number]["selection_method"]; cycle_scope: number; is_fallback: boolean; created_at: string }>(
    "SELECT group_id, group_name, selection_method, cycle_scope, is_fallback, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at FROM routing_groups ORDER BY group_id",
  );
  const members = await db.all<{ group_id: number; gateway_id: number; weight: number; active: boolean }>(
    "SELECT group_id, gateway_id, weight, active FROM routing_group_members ORDER BY group_id, position",
  );
  const rules = await db.all<{ rule_name: string; rule_type: "BIN" | "BANK"; bin_prefix: string | null; bank: string | null; group_id: number; enabled: boolean; created_at: string }>(
    "SELECT rule_name, rule_type, bin_prefix, bank, group_id, enabled, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at FROM routing_rules ORDER BY rule_id",
  );
  const states = await selectGroupStates(db);
  const config: RoutingConfig = {
    groups: groups.map((g) => ({
      group_id: g.group_id,
      group_name: g.group_name,
      selection_method: g.selection_method,
      cycle_scope: g.cycle_scope as CycleScope,
      is_fallback: g.is_fallback,
      created_at: g.created_at,
      members: members.filter((m) => m.group_id === g.group_id).map((m) => ({ gateway_id: m.gateway_id, weight: m.weight, active: m.active })),
    })),
    rules: rules.map((r) =>
      r.rule_type === "BIN"
        ? { type: "BIN" as const, rule_name: r.rule_name, bin_prefix: r.bin_prefix ?? "", group_id: r.group_id, enabled: r.enabled, created_at: r.created_at }
        : { type: "BANK" as const, rule_name: r.rule_name, bank: r.bank ?? "", group_id: r.group_id, enabled: r.enabled, created_at: r.created_at },
    ),
  };
  const status = config.groups.map((g) => {
    const s = states.get(g.group_id);
    const ms = membersOf(g);
    const rot = rotationOf(g.selection_method, ms);
    let next: string | null = null;
    if (s && s.signature === groupSignature(g.selection_method, ms)) {
      const idx = peekNext(rot, rotationState(s));
      next = idx === null ? null : String(ms[idx]?.gatewayId ?? "");
    }
    return { group_id: g.group_id, total_calls: s ? s.totalCalls : 0, next_gateway_id: next };
  });
  return { config, status };
}

/** `routing show` for people: groups with members and state, then rules in resolution order. */
export async function formatRoutingShow(db: Database): Promise<string> {
  const { config, status } = await readRoutingConfig(db);
  if (config.groups.length === 0) return "No routing configuration is loaded. Load one with: npm run service:cli -- routing load --db PATH --file FILE\n";
  const aliases = new Map((await db.all<{ gateway_id: number; gateway_alias: string }>("SELECT gateway_id, gateway_alias FROM gateways")).map((r) => [r.gateway_id, r.gateway_alias]));
  const decisions = await db.all<{ n: string | number }>("SELECT count(*) AS n FROM routing_decisions");
  const byId = new Map(config.groups.map((g) => [g.group_id, g]));
  const out: string[] = [];
  const live = (await selectVersions(db)).at(-1);
  out.push(`Routing configuration: ${config.groups.length} groups, ${config.rules.length} rules; ${Number(decisions[0]?.n ?? 0)} decisions recorded`);
  if (live) out.push(`Version ${live.version}, ${live.created_at} by ${live.author}: ${live.reason}${live.restored_from === null ? "" : ` (restores version ${live.restored_from})`}`);
  out.push("");
  out.push("Groups");
  for (const g of config.groups) {
    const st = status.find((s) => s.group_id === g.group_id);
    const active = g.members.filter((m) => m.active).length;
    out.push(
      `  ${g.group_id}  "${g.group_name}"${g.is_fallback ? "  [FALLBACK]" : ""}  ${g.selection_method}  scope ${g.cycle_scope} (${SCOPE_NAMES[g.cycle_scope]})  created ${g.created_at}`,
    );
    out.push(`      ${active} of ${g.members.length} members active; ${st?.total_calls ?? 0} calls answered; next gateway ${st?.next_gateway_id ?? "-"}`);
    g.members.forEach((m, i) => {
      const weight = g.selection_method === "WEIGHTAGE" ? `  weight ${m.weight}` : "";
      out.push(`      [${i}] gateway ${m.gateway_id} (${aliases.get(m.gateway_id) ?? "unknown gateway"})${weight}${m.active ? "" : "  INACTIVE"}`);
    });
  }
  out.push("");
  out.push("Rules (BIN rules first, longest prefix first, newest first; then BANK rules, newest first)");
  const ordered = config.rules
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      const rank = (x: typeof a) => (x.r.type === "BIN" ? 0 : 1);
      const len = (x: typeof a) => (x.r.type === "BIN" ? x.r.bin_prefix.length : 0);
      return rank(a) - rank(b) || len(b) - len(a) || Date.parse(b.r.created_at ?? "") - Date.parse(a.r.created_at ?? "") || b.i - a.i;
    });
  if (ordered.length === 0) out.push("  (none: every call goes to the fallback group)");
  for (const { r } of ordered) {
    const what = r.type === "BIN" ? `BIN  ${r.bin_prefix.padEnd(8)}` : `BANK "${r.bank}"`;
    const g = byId.get(r.group_id);
    out.push(`  ${what}  -> group ${r.group_id} "${g?.group_name ?? "?"}"  "${r.rule_name}"  created ${r.created_at}${r.enabled ? "" : "  DISABLED"}`);
  }
  return `${out.join("\n")}\n`;
}
