/**
 * Routing proposals from evidence (pure; the service and the browser both may import it): for a BIN
 * or an issuing bank, given each gateway's (MID's) counts over the evidence window, as the order
 * summary answers them (group_by bin or bank + gateway_id; metrics attempts, approvals, cb_count),
 * and the MID the live configuration currently sends it to, propose routing it to another active MID
 * whose approval rate is better by at least a margin and significantly so.
 *
 * The test: a pooled two-proportion z-test, one-sided (H1: the candidate approves more often), each
 * side with at least `minAttempts` attempts. When several candidates are tested for one key, the
 * significance level is split among them (Bonferroni), so the chance of proposing anything for a
 * key where no MID is truly better stays at most `alpha`. Rates are ratios of sums, as everywhere in
 * the product: approval rate = approvals ÷ attempts, chargeback rate = chargebacks ÷ approvals. A
 * proposal whose chargeback rate is higher than the current MID's is kept and flagged, never
 * dropped: trading approvals for disputes must be a visible choice.
 */
import { midName } from "@/lib/report/mid-name";

export interface MidCounts {
  gateway_id: string;
  attempts: number;
  approvals: number;
  cb_count: number;
}

export interface ProposalInput {
  kind: "BIN" | "BANK";
  /** The BIN (as the reports know it) or the issuing bank. */
  key: string;
  /** The MID the live configuration sends this key to now; null when it has none to compare with. */
  current_gateway_id: string | null;
  /** MIDs that are active somewhere in the live configuration: only these are proposed. */
  active_gateway_ids: readonly string[];
  counts: readonly MidCounts[];
}

export interface ProposalOptions {
  /** One-sided significance level for a key (split among its candidates). */
  alpha: number;
  /** Attempts each side needs in the window. */
  minAttempts: number;
  /** The least improvement in approval rate worth a change, in percentage points. */
  marginPp: number;
}

export const PROPOSAL_DEFAULTS: ProposalOptions = { alpha: 0.01, minAttempts: 200, marginPp: 2 };

export interface SideFigures extends MidCounts {
  approval_rate: number;
  /** Chargebacks ÷ approvals; null with no approvals. */
  cb_rate: number | null;
}

export interface Proposal {
  kind: "BIN" | "BANK";
  key: string;
  current: SideFigures;
  proposed: SideFigures;
  /** proposed − current approval rate, percentage points. */
  difference_pp: number;
  z: number;
  /** One-sided p-value of the z-test. */
  p_value: number;
  /** The level p_value was held to (alpha ÷ candidates tested). */
  threshold: number;
  /** The proposed MID's chargeback rate is higher than the current one's. */
  chargeback_worse: boolean;
  /** The rule that makes the change, in the configuration file's shape (its group is chosen on review). */
  rule: { type: "BIN"; bin_prefix: string; rule_name: string } | { type: "BANK"; bank: string; rule_name: string };
  /** e.g. "route BIN 414720 to Wells 16 (#16): 61.2 % vs 55.1 %, n = 1,840 / 2,210" */
  summary: string;
}

// ---------------------------------------------------------------------------------------------
// The normal distribution

/**
 * The complementary error function, by the Chebyshev fit of Numerical Recipes (erfcc): fractional
 * error below 1.2e-7 everywhere, so small tail probabilities keep their relative accuracy.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

export function erf(x: number): number {
  return 1 - erfc(x);
}

/** P(Z ≤ x) for a standard normal Z. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** P(Z > x), computed directly so far tails are not lost to 1 − Φ(x). */
export function normalUpperTail(x: number): number {
  return 0.5 * erfc(x / Math.SQRT2);
}

/**
 * Pooled two-proportion z-test of H1: x1/n1 > x2/n2 (one-sided). With no variance (both rates 0 or
 * both 1) there is no evidence: z = 0, p = 0.5.
 */
export function twoProportionZTest(x1: number, n1: number, x2: number, n2: number): { z: number; p: number } {
  if (n1 <= 0 || n2 <= 0) return { z: 0, p: 0.5 };
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (!(se > 0)) return { z: 0, p: 0.5 };
  const z = (x1 / n1 - x2 / n2) / se;
  return { z, p: normalUpperTail(z) };
}

// ---------------------------------------------------------------------------------------------
// Proposals

const count = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const pct = (r: number) => `${(r * 100).toFixed(1)} %`;

function figures(c: MidCounts): SideFigures {
  return { ...c, approval_rate: c.attempts > 0 ? c.approvals / c.attempts : 0, cb_rate: c.approvals > 0 ? c.cb_count / c.approvals : null };
}

/** A MID's name as every surface gives it (lib/report/mid-name.ts): "Wells 02 (#16)", or "MID #16". */
export type MidNamer = (gatewayId: string) => string;

/**
 * The proposal for one key, or null when no other active MID is better by the margin and
 * significantly. Its rule's name and summary name the MID by `name`.
 */
export function proposeFor(input: ProposalInput, opts: ProposalOptions = PROPOSAL_DEFAULTS, name: MidNamer = (id) => midName(id)): Proposal | null {
  if (input.current_gateway_id === null) return null;
  const current = input.counts.find((c) => c.gateway_id === input.current_gateway_id);
  if (!current || current.attempts < opts.minAttempts) return null;
  const active = new Set(input.active_gateway_ids);
  const candidates = input.counts.filter((c) => c.gateway_id !== current.gateway_id && active.has(c.gateway_id) && c.attempts >= opts.minAttempts);
  if (candidates.length === 0) return null;
  const threshold = opts.alpha / candidates.length;
  const cur = figures(current);
  let best: Proposal | null = null;
  for (const c of candidates) {
    const alt = figures(c);
    const difference_pp = (alt.approval_rate - cur.approval_rate) * 100;
    if (difference_pp < opts.marginPp) continue;
    const { z, p } = twoProportionZTest(c.approvals, c.attempts, current.approvals, current.attempts);
    if (!(p < threshold)) continue;
    if (best && alt.approval_rate <= best.proposed.approval_rate) continue;
    const what = input.kind === "BIN" ? `BIN ${input.key}` : `bank ${input.key}`;
    best = {
      kind: input.kind,
      key: input.key,
      current: cur,
      proposed: alt,
      difference_pp,
      z,
      p_value: p,
      threshold,
      chargeback_worse: alt.cb_rate !== null && cur.cb_rate !== null ? alt.cb_rate > cur.cb_rate : alt.cb_rate !== null && alt.cb_count > 0,
      rule:
        input.kind === "BIN"
          ? { type: "BIN", bin_prefix: input.key, rule_name: `BIN ${input.key} to ${name(c.gateway_id)}` }
          : { type: "BANK", bank: input.key, rule_name: `BANK ${input.key} to ${name(c.gateway_id)}` },
      summary: `route ${what} to ${name(c.gateway_id)}: ${pct(alt.approval_rate)} vs ${pct(cur.approval_rate)}, n = ${count.format(c.attempts)} / ${count.format(current.attempts)}`,
    };
  }
  return best;
}

/** Proposals for many keys, the largest improvement first. */
export function proposeRules(inputs: readonly ProposalInput[], opts: ProposalOptions = PROPOSAL_DEFAULTS, name?: MidNamer): Proposal[] {
  return inputs.flatMap((i) => proposeFor(i, opts, name) ?? []).sort((a, b) => b.difference_pp - a.difference_pp || (a.key < b.key ? -1 : 1));
}

type Cell = string | number | null | undefined;

/**
 * Per-key MID counts from order-summary records grouped by `keyField` (bin or bank) and gateway_id
 * with the metrics attempts, approvals and cb_count. Rows without a key or gateway are skipped.
 */
export function countsByKey(records: readonly Record<string, Cell>[], keyField: "bin" | "bank"): Map<string, MidCounts[]> {
  const num = (v: Cell) => (typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : 0);
  const out = new Map<string, Map<string, MidCounts>>();
  for (const r of records) {
    const key = r[keyField];
    const gw = r.gateway_id;
    if (key === null || key === undefined || gw === null || gw === undefined) continue;
    const byMid = out.get(String(key)) ?? new Map<string, MidCounts>();
    const prev = byMid.get(String(gw)) ?? { gateway_id: String(gw), attempts: 0, approvals: 0, cb_count: 0 };
    byMid.set(String(gw), { ...prev, attempts: prev.attempts + num(r.attempts), approvals: prev.approvals + num(r.approvals), cb_count: prev.cb_count + num(r.cb_count) });
    out.set(String(key), byMid);
  }
  return new Map([...out].map(([k, m]) => [k, [...m.values()]]));
}
