/**
 * A demo routing configuration built from whatever BINs and gateways the database holds (the
 * generator's, or imported ones), so every feature of SPEC.md §4.3 can be seen on demo data: BIN rules
 * (6-, 7- and 8-digit prefixes, two rules on one BIN split by cycle scope, a disabled rule, a rule to a
 * group without active members), BANK rules, all three selection methods, scopes 0, 1 and 2, an
 * inactive member, and the fallback group; and, when the data holds the routing evidence case
 * (service/data/routing-evidence-case.ts), a group of one MID for its two BINs. Deterministic for the
 * same data.
 */
import type { Database } from "../db";
import { routingEvidenceCase } from "../data/routing-evidence-case";
import { loadRoutingConfig } from "./loader";
import type { RoutingConfigFile } from "./model";

/** The SPEC.md §4.2 example BIN; used when present. */
const EXAMPLE_BIN = "414720";

export async function buildDemoRoutingConfig(db: Database): Promise<RoutingConfigFile> {
  const gateways = (await db.all<{ gateway_id: number }>("SELECT gateway_id FROM gateways ORDER BY gateway_id")).map((r) => r.gateway_id);
  const bins = await db.all<{ bin: string; bank: string; card_type: string }>("SELECT bin, bank, card_type FROM bins WHERE length(bin) = 6 ORDER BY bin");
  if (gateways.length === 0) throw new Error("cannot build a demo routing configuration: the gateways table is empty");
  if (bins.length === 0) throw new Error("cannot build a demo routing configuration: the bins table is empty");

  // k distinct gateways starting at `from`, wrapping around when there are few gateways.
  const pick = (from: number, k: number) => {
    const out: number[] = [];
    for (let i = 0; i < Math.min(k, gateways.length); i++) out.push(gateways[(from + i) % gateways.length]!);
    return out;
  };

  const binsByBank = new Map<string, { bin: string; card_type: string }[]>();
  for (const b of bins) {
    const list = binsByBank.get(b.bank) ?? [];
    list.push(b);
    binsByBank.set(b.bank, list);
  }
  const banksBySize = [...binsByBank.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1)).map(([bank]) => bank);
  const prepaidShare = (bank: string) => {
    const list = binsByBank.get(bank) ?? [];
    return list.filter((b) => b.card_type === "PREPAID").length / Math.max(1, list.length);
  };

  const example = bins.find((b) => b.bin === EXAMPLE_BIN) ?? bins[0]!;
  const exampleBank = example.bank;
  // BANK rules: the two banks with the most prepaid BINs, and the two largest issuers other than the
  // example BIN's bank (its BIN rules show that a BIN rule beats the bank).
  const prepaidBanks = [...banksBySize].sort((a, b) => prepaidShare(b) - prepaidShare(a) || (a < b ? -1 : 1)).slice(0, 2);
  const majorBanks = banksBySize.filter((b) => !prepaidBanks.includes(b) && b !== exampleBank).slice(0, 2);
  if (exampleBank && !prepaidBanks.includes(exampleBank)) majorBanks.unshift(exampleBank);
  // BIN rules on banks that have no BANK rule, so they route only through their BIN rules.
  const ruled = new Set([...prepaidBanks, ...majorBanks]);
  const otherBins = banksBySize.filter((b) => !ruled.has(b)).map((b) => binsByBank.get(b)![0]!.bin);
  const binAt = (i: number) => otherBins[i % Math.max(1, otherBins.length)] ?? example.bin;

  const t = (day: number) => `2025-01-${String(day).padStart(2, "0")}T09:00:00.000Z`;
  const config: RoutingConfigFile = {
    groups: [
      {
        group_id: 1,
        group_name: "Default rotation",
        selection_method: "ROUND_ROBIN",
        cycle_scope: 2,
        is_fallback: true,
        created_at: t(2),
        members: pick(0, 4).map((gateway_id) => ({ gateway_id, weight: 1, active: true })),
      },
      {
        group_id: 2,
        group_name: "Chase debit rebills",
        selection_method: "ROUND_ROBIN",
        cycle_scope: 1,
        created_at: t(3),
        members: pick(4, 3).map((gateway_id) => ({ gateway_id, weight: 1, active: true })),
      },
      {
        group_id: 3,
        group_name: "Major issuers, initials (weighted)",
        selection_method: "WEIGHTAGE",
        cycle_scope: 0,
        created_at: t(3),
        members: pick(7, 3).map((gateway_id, i) => ({ gateway_id, weight: [5, 3, 2][i] ?? 1, active: true })),
      },
      {
        group_id: 4,
        group_name: "Prepaid issuers (random)",
        selection_method: "RANDOM",
        cycle_scope: 2,
        created_at: t(4),
        // The last member is paused: it keeps its place in the list but gets no traffic.
        members: pick(10, 4).map((gateway_id, i) => ({ gateway_id, weight: 1, active: i < 3 })),
      },
      {
        group_id: 5,
        group_name: "Premium credit, all cycles (weighted)",
        selection_method: "WEIGHTAGE",
        cycle_scope: 2,
        created_at: t(5),
        members: pick(14, 2).map((gateway_id, i) => ({ gateway_id, weight: [3, 1][i] ?? 1, active: true })),
      },
      {
        group_id: 6,
        group_name: "Rebill recovery (random)",
        selection_method: "RANDOM",
        cycle_scope: 1,
        created_at: t(6),
        members: pick(16, 3).map((gateway_id) => ({ gateway_id, weight: 1, active: true })),
      },
      {
        group_id: 7,
        group_name: "Paused MIDs",
        selection_method: "ROUND_ROBIN",
        cycle_scope: 2,
        created_at: t(7),
        members: pick(19, 1).map((gateway_id) => ({ gateway_id, weight: 1, active: false })),
      },
    ],
    rules: [
      // Two rules on the example BIN, told apart by their groups' scopes (rebills / initials); with no
      // sales type the newer one (initials) wins.
      { type: "BIN", rule_name: `BIN ${example.bin}`, bin_prefix: example.bin, group_id: 2, created_at: t(10) },
      { type: "BIN", rule_name: `BIN ${example.bin} initials`, bin_prefix: example.bin, group_id: 3, created_at: t(11) },
      // Longer prefixes of real BINs win over the 6-digit rules and the bank rules.
      { type: "BIN", rule_name: `BIN ${example.bin}1`, bin_prefix: `${example.bin}1`, group_id: 5, created_at: t(12) },
      { type: "BIN", rule_name: `BIN ${binAt(0)}`, bin_prefix: binAt(0), group_id: 5, created_at: t(12) },
      { type: "BIN", rule_name: `BIN ${binAt(0)}99`, bin_prefix: `${binAt(0)}99`, group_id: 6, created_at: t(13) },
      { type: "BIN", rule_name: `BIN ${binAt(1)}`, bin_prefix: binAt(1), group_id: 6, created_at: t(13) },
      // Points at a group with no active member: skipped, so these cards go on to the fallback.
      { type: "BIN", rule_name: `BIN ${binAt(2)} (paused)`, bin_prefix: binAt(2), group_id: 7, created_at: t(14) },
      { type: "BIN", rule_name: `BIN ${binAt(3)} (disabled)`, bin_prefix: binAt(3), group_id: 5, enabled: false, created_at: t(14) },
      ...prepaidBanks.map((bank, i) => ({ type: "BANK" as const, rule_name: `BANK ${bank}`, bank, group_id: 4, created_at: t(15 + i) })),
      ...majorBanks.map((bank, i) => ({ type: "BANK" as const, rule_name: `BANK ${bank}`, bank, group_id: 3, created_at: t(17 + i) })),
    ],
  };
  // The evidence case's two BINs (when the data has it) go to a group of one MID, their current MID,
  // so the routing workspace compares the case's other MID with exactly that one.
  const evidence = await routingEvidenceCase(db);
  if (evidence) {
    config.groups.push({
      group_id: 8,
      group_name: "Evidence case (one MID)",
      selection_method: "ROUND_ROBIN",
      cycle_scope: 2,
      created_at: t(8),
      members: [{ gateway_id: evidence.current_gateway_id, weight: 1, active: true }],
    });
    for (const bin of [evidence.better_bin, evidence.noise_bin]) {
      (config.rules ??= []).push({ type: "BIN", rule_name: `BIN ${bin} (evidence case)`, bin_prefix: bin, group_id: 8, created_at: t(20) });
    }
  }
  // With very little reference data some picks coincide; keep the first rule of each name.
  const names = new Set<string>();
  config.rules = (config.rules ?? []).filter((r) => !names.has(r.rule_name) && names.add(r.rule_name));
  return config;
}

/** Builds the demo configuration from the `bins` and `gateways` tables and loads it (replacing any). */
export async function seedDemoRouting(db: Database): Promise<void> {
  const config = await buildDemoRoutingConfig(db);
  const result = await loadRoutingConfig(db, config);
  if (!result.ok) {
    throw new Error(`demo routing configuration rejected: ${result.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
  }
}
