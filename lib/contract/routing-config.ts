/**
 * The BIN routing configuration file's format (docs/routing.md), the wire format of the live
 * configuration endpoints too: the schema, the checks across groups and rules, and the checks against
 * reference data (gateways, banks) given as data, every problem listed with its JSON path. Shared by
 * the service (service/routing/) and the dashboard, so a form checks a configuration exactly as the
 * service does.
 */
import { z } from "zod";
import { issuesToDetails, type ErrorDetail } from "./error-envelope";
import { SELECTION_METHODS } from "./routing-values";

/** 0 initials, 1 rebills, 2 both. */
export const CYCLE_SCOPES = [0, 1, 2] as const;
export type CycleScope = (typeof CYCLE_SCOPES)[number];
export const SCOPE_NAMES: Record<CycleScope, string> = { 0: "initials", 1: "rebills", 2: "both" };

/** Keeps smooth weighted round-robin credits small integers and windows short enough to reason about. */
export const MAX_WEIGHT = 10_000;
export const MAX_MEMBERS = 100;
export const FALLBACK_RULE_NAME = "FALLBACK";

const timestampField = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), {
    error: "must be an ISO 8601 date or timestamp, e.g. 2025-07-01T09:30:00Z",
  });

const idField = z.int({ error: "must be an integer" }).min(1, { error: "must be ≥ 1" }).max(2_147_483_647);
const nameField = z.string().trim().min(1, { error: "must not be empty" }).max(200);

export const RoutingMemberSchema = z.strictObject({
  gateway_id: idField,
  weight: z.int({ error: "weight must be an integer" }).min(1, { error: "weight must be ≥ 1" }).max(MAX_WEIGHT).default(1),
  active: z.boolean().default(true),
});

export const RoutingGroupSchema = z.strictObject({
  group_id: idField,
  group_name: nameField,
  selection_method: z.enum(SELECTION_METHODS, { error: `must be one of ${SELECTION_METHODS.join(", ")}` }),
  cycle_scope: z.union([z.literal(0), z.literal(1), z.literal(2)], { error: "must be 0 (initials), 1 (rebills) or 2 (both)" }).default(2),
  is_fallback: z.boolean().default(false),
  created_at: timestampField.optional(),
  members: z.array(RoutingMemberSchema).min(1, { error: "a group needs at least one member (mark members inactive instead)" }).max(MAX_MEMBERS),
});

const ruleCommon = {
  rule_name: nameField,
  group_id: idField,
  enabled: z.boolean().default(true),
  created_at: timestampField.optional(),
};

export const BinRuleSchema = z.strictObject({
  type: z.literal("BIN"),
  bin_prefix: z.string().regex(/^\d{6,8}$/, { error: "bin_prefix must be a string of 6 to 8 digits" }),
  ...ruleCommon,
});

export const BankRuleSchema = z.strictObject({
  type: z.literal("BANK"),
  bank: z.string().trim().min(1, { error: "bank must not be empty" }).max(200),
  ...ruleCommon,
});

export const RoutingRuleSchema = z.discriminatedUnion("type", [BinRuleSchema, BankRuleSchema], {
  error: 'type must be "BIN" or "BANK"',
});

/** The file's shape. Checks across groups and rules are in `crossCheckConfig`, which runs even when the shape is wrong. */
export const RoutingConfigFileSchema = z.strictObject({
  groups: z.array(RoutingGroupSchema).min(1, { error: "at least one group (the fallback) is required" }),
  rules: z.array(RoutingRuleSchema).default([]),
});

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asRecord = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * Checks that relate parts of the file: exactly one fallback, unique group ids and rule names, no
 * gateway twice in a group, rules pointing at existing groups. Lenient about shape (the schema reports
 * that), so one run names every problem.
 */
export function crossCheckConfig(input: unknown): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const cfg = asRecord(input);
  const groups = asArray(cfg.groups).map(asRecord);
  const fallbacks = groups.flatMap((g, i) => (g.is_fallback === true ? [i] : []));
  if (groups.length > 0 && fallbacks.length === 0) {
    problems.push({ path: "groups", message: "exactly one group must have is_fallback: true; none has" });
  }
  for (const i of fallbacks.slice(1)) {
    problems.push({ path: `groups[${i}].is_fallback`, message: `exactly one group may be the fallback; groups[${fallbacks[0]}] already is` });
  }
  const groupIds = new Map<unknown, number>();
  groups.forEach((g, i) => {
    const first = groupIds.get(g.group_id);
    if (first !== undefined) problems.push({ path: `groups[${i}].group_id`, message: `duplicate group_id ${String(g.group_id)} (also groups[${first}])` });
    else if (g.group_id !== undefined) groupIds.set(g.group_id, i);
    const seen = new Map<unknown, number>();
    asArray(g.members).map(asRecord).forEach((m, j) => {
      const prev = seen.get(m.gateway_id);
      if (prev !== undefined) problems.push({ path: `groups[${i}].members[${j}].gateway_id`, message: `gateway ${String(m.gateway_id)} is already member ${prev} of this group` });
      else if (m.gateway_id !== undefined) seen.set(m.gateway_id, j);
    });
  });
  const ruleNames = new Map<unknown, number>();
  asArray(cfg.rules).map(asRecord).forEach((r, i) => {
    if (r.group_id !== undefined && !groupIds.has(r.group_id)) problems.push({ path: `rules[${i}].group_id`, message: `no group with group_id ${String(r.group_id)}` });
    const first = ruleNames.get(r.rule_name);
    if (first !== undefined) problems.push({ path: `rules[${i}].rule_name`, message: `duplicate rule_name "${String(r.rule_name)}" (also rules[${first}])` });
    else if (r.rule_name !== undefined) ruleNames.set(r.rule_name, i);
  });
  return problems;
}

export type RoutingConfigFile = z.input<typeof RoutingConfigFileSchema>;
export type RoutingConfig = z.output<typeof RoutingConfigFileSchema>;
export type RoutingGroupConfig = RoutingConfig["groups"][number];
export type RoutingRuleConfig = RoutingConfig["rules"][number];

/** Every check that needs no reference data, on a configuration document (parsed JSON or JSON text). */
export function parseRoutingConfig(input: unknown): { config: RoutingConfig | null; problems: ErrorDetail[]; raw: unknown } {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (e) {
      return { config: null, problems: [{ path: "(file)", message: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` }], raw: undefined };
    }
  }
  const r = RoutingConfigFileSchema.safeParse(value);
  const problems = [...(r.success ? [] : issuesToDetails(r.error)), ...crossCheckConfig(value)];
  return { config: r.success && problems.length === 0 ? r.data : null, problems, raw: value };
}

/** The reference data a configuration is checked against: gateway ids and the BIN table's banks. */
export interface ReferenceData {
  gateways: ReadonlySet<number>;
  banks: readonly string[];
}

/**
 * Checks against the reference data: every member gateway exists, every BANK rule names a known bank.
 * Lenient about shape, so it can run alongside the schema's checks.
 */
export function checkAgainstReference(ref: ReferenceData, input: unknown): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const cfg = asRecord(input);
  asArray(cfg.groups).map(asRecord).forEach((g, i) =>
    asArray(g.members).map(asRecord).forEach((m, j) => {
      if (Number.isInteger(m.gateway_id) && !ref.gateways.has(m.gateway_id as number)) {
        problems.push({ path: `groups[${i}].members[${j}].gateway_id`, message: `gateway ${String(m.gateway_id)} does not exist (see the gateways table)` });
      }
    }),
  );
  const bankRules = asArray(cfg.rules)
    .map(asRecord)
    .flatMap((r, i) => (r.type === "BANK" && typeof r.bank === "string" && r.bank.trim() !== "" ? [{ bank: r.bank.trim(), i }] : []));
  if (bankRules.length > 0) {
    const exact = new Set(ref.banks);
    const byLower = new Map(ref.banks.map((b) => [b.toLowerCase(), b]));
    for (const { bank, i } of bankRules) {
      if (exact.has(bank)) continue;
      const near = byLower.get(bank.toLowerCase());
      problems.push({
        path: `rules[${i}].bank`,
        message: near ? `bank "${bank}" is not in the BIN table; did you mean "${near}"? (names match exactly)` : `bank "${bank}" is not in the BIN table`,
      });
    }
  }
  return problems;
}

