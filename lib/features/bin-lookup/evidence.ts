/**
 * Evidence beside a BIN's routing answer (pure, shared by the server and the browser): the last 90
 * full days for that BIN per gateway, from ONE order-summary report grouped by bin and gateway, with
 * the product's own KPIs (lib/report/metrics/kpis.ts) as ratios of sums, and the gateway with the best
 * approval rate among those with enough attempts to mean something.
 *
 * The service's `bin` dimension is the first 6 digits of the card number (SPEC.md §2.2), so a 7- or
 * 8-digit BIN is filtered and matched on its first 6 digits: its figures are those of every card
 * starting with them.
 */
import { z } from "zod";
import { addDays } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import { midName } from "@/lib/report/mid-name";
import { evaluate, measureFor, type KpiId, type Measure } from "@/lib/report/metrics/kpis";
import { sumRecords } from "@/lib/report/metrics/sums";
import { formatValue } from "@/lib/report/metrics/format";
import { MAX_BULK_BINS } from "./lookup";

/**
 * The fewest attempts a gateway needs in the window before its approval rate may make it "best", when
 * no setting says otherwise: the route passes BIN_EVIDENCE_MIN_ATTEMPTS (lib/core/env/env-schema.ts).
 */
export const BIN_EVIDENCE_MIN_ATTEMPTS = 30;

/** Full days of evidence: today−90 … today−1 in the reporting time zone (today is still moving). */
export const EVIDENCE_DAYS = 90;

/** Digits of a BIN the reports know (their `bin` dimension). */
export const REPORT_BIN_DIGITS = 6;

export const EVIDENCE_GROUP_BY = ["bin", "gateway_id", "gateway_alias"] as const;
export const EVIDENCE_METRICS = ["attempts", "approvals", "cb_count"] as const;

/** The KPIs the evidence shows, by their ids in the product's one KPI registry. */
export const EVIDENCE_KPIS = { approval: "approval_rate", chargeback: "cb_rate_count" } as const satisfies Record<string, KpiId>;

function kpi(id: KpiId): Measure {
  const m = measureFor(id, "orders");
  if (!m) throw new Error(`KPI ${id} is not offered by the order summary`);
  return m;
}
const APPROVAL_RATE = kpi(EVIDENCE_KPIS.approval);
const CB_RATE = kpi(EVIDENCE_KPIS.chargeback);


// ---------------------------------------------------------------------------------------------
// The one report

export interface EvidenceRange {
  start_date: string;
  end_date: string;
  days: number;
  time_zone: string;
}

/** The last 90 full days before `today` (a calendar date in `timeZone`). */
export function evidenceRange(today: string, timeZone: string): EvidenceRange {
  return { start_date: addDays(today, -EVIDENCE_DAYS), end_date: addDays(today, -1), days: EVIDENCE_DAYS, time_zone: timeZone };
}

/** What the reports call a BIN: its first 6 digits. */
export function reportBin(bin: string): string {
  return bin.slice(0, REPORT_BIN_DIGITS);
}

/** Distinct BINs in the order given. */
export function distinctBins(bins: readonly string[]): string[] {
  return [...new Set(bins)];
}

/** The report request: every asked BIN's first 6 digits as one `bin` filter list. */
export function evidenceRequest(range: EvidenceRange, bins: readonly string[]) {
  return {
    start_date: range.start_date,
    end_date: range.end_date,
    group_by: [...EVIDENCE_GROUP_BY],
    metrics: [...EVIDENCE_METRICS],
    filters: { bin: distinctBins(bins.map(reportBin)) },
  };
}

// ---------------------------------------------------------------------------------------------
// Records → evidence

export interface EvidenceFigures {
  attempts: number;
  approvals: number;
  /** approvals ÷ attempts (sums over the window); null without attempts. */
  approval_rate: number | null;
  cb_count: number;
  /** cb_count ÷ approvals (the product's "Chargeback rate (count)"); null without approvals. */
  cb_rate: number | null;
}

export interface EvidenceRow extends EvidenceFigures {
  /** The gateway id as text (routing answers name gateways as text); null: records with no gateway. */
  id: string | null;
  /** Its alias as reports give it, or null when none has. */
  name: string | null;
  /** Attempts reach the minimum: its approval rate may be called best. */
  enough: boolean;
}

export type BestReason =
  /** `best` has the highest approval rate of the `eligible` gateways with enough attempts. */
  | { kind: "best"; min_attempts: number; eligible: number; message: string }
  /** Several gateways with enough attempts share the highest approval rate exactly: none is named. */
  | { kind: "tie"; min_attempts: number; tied: string[]; message: string }
  /** Some attempts, but no gateway has enough. */
  | { kind: "too_few_attempts"; min_attempts: number; message: string }
  /** No attempts at all for this BIN in the window. */
  | { kind: "no_data"; min_attempts: number; message: string };

export interface BinEvidence {
  /** The BIN as asked. */
  bin: string;
  /** The BIN the figures are for: its first 6 digits. */
  report_bin: string;
  /** Per gateway, most attempts first. */
  gateways: EvidenceRow[];
  /** All gateways together (ratios of the sums, never averages of the rows' rates). */
  totals: EvidenceFigures;
  /** The best gateway's id, or null (see `best_reason`). */
  best: string | null;
  best_reason: BestReason;
}

export interface EvidenceDone {
  state: "done";
  range: EvidenceRange;
  /** When the report's data was fetched from the reporting service (a cached answer keeps its time). */
  fetched_at: string;
  source: "upstream" | "cache" | "derived";
  min_attempts: number;
  /** One per distinct BIN asked, in the order asked. */
  bins: BinEvidence[];
}

export interface EvidencePending {
  state: "pending";
  range: EvidenceRange;
  min_attempts: number;
  /** Where the report is: waiting for the reporting quota, or being fetched. */
  phase: "queued" | "fetching";
  /** Calls ahead of it in the queue (everyone's), when queued. */
  position: number | null;
  /** When its call should start, when queued. */
  estimated_start: string | null;
}

export type EvidenceAnswer = EvidenceDone | EvidencePending;

const toText = (v: string | number | null | undefined): string | null => (v === null || v === undefined || v === "" ? null : String(v));

function figures(records: readonly ReportRecord[]): EvidenceFigures {
  const sums = sumRecords(records, EVIDENCE_METRICS);
  const approval = evaluate(APPROVAL_RATE, sums);
  const cb = evaluate(CB_RATE, sums);
  return {
    attempts: sums.get("attempts") ?? 0,
    approvals: sums.get("approvals") ?? 0,
    approval_rate: approval.value,
    cb_count: sums.get("cb_count") ?? 0,
    cb_rate: cb.value,
  };
}

const byId = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a.localeCompare(b, "en-US", { numeric: true });

/** A gateway in words, as every surface names a MID (lib/report/mid-name.ts): "Chase East (#12)", "MID #12" when no report has named it. */
export function gatewayName(row: Pick<EvidenceRow, "id" | "name">): string {
  if (row.id === null) return "No gateway recorded";
  return midName(row.id, row.name);
}

/** "412 approvals ÷ 480 attempts": a rate's numerator and denominator, for its hover text. */
export function approvalRateTitle(f: EvidenceFigures): string {
  return `${formatValue(f.approvals, "count")} approvals ÷ ${formatValue(f.attempts, "count")} attempts`;
}
export function cbRateTitle(f: EvidenceFigures): string {
  return `${formatValue(f.cb_count, "count")} chargebacks ÷ ${formatValue(f.approvals, "count")} approvals`;
}

/** "Best approval rate with ≥ 30 attempts": how the best gateway is marked, in words. */
export function bestLabel(minAttempts: number): string {
  return `Best approval rate with ≥ ${minAttempts} attempts`;
}

/**
 * Which gateway has the best approval rate among those with at least `minAttempts` attempts. Rates
 * are compared exactly (a₁·t₂ against a₂·t₁, whole numbers), so equal rates are a tie, and a tie
 * names no gateway: picking one of equals would claim a difference the data does not show.
 */
export function chooseBest(rows: readonly EvidenceRow[], minAttempts: number): { best: string | null; reason: BestReason } {
  const min = Math.max(1, minAttempts);
  const eligible = rows.filter((r): r is EvidenceRow & { id: string } => r.id !== null && r.attempts >= min);
  if (eligible.length === 0) {
    const attempts = rows.reduce((n, r) => n + r.attempts, 0);
    if (attempts === 0) return { best: null, reason: { kind: "no_data", min_attempts: min, message: "No attempts with this BIN in these 90 days, so no gateway can be called best." } };
    return {
      best: null,
      reason: {
        kind: "too_few_attempts",
        min_attempts: min,
        message: `No gateway has ${min} or more attempts with this BIN in these 90 days, so none is called best: too few attempts to compare approval rates.`,
      },
    };
  }
  // Higher approvals ÷ attempts first; equal rates compare equal.
  type Eligible = (typeof eligible)[number];
  const compare = (a: Eligible, b: Eligible) => b.approvals * a.attempts - a.approvals * b.attempts;
  const sorted = [...eligible].sort((a, b) => compare(a, b) || byId(a.id, b.id));
  const top = sorted[0]!;
  const tied = sorted.filter((r) => compare(r, top) === 0);
  const rate = formatValue(top.approval_rate, "percent");
  if (tied.length > 1) {
    return {
      best: null,
      reason: {
        kind: "tie",
        min_attempts: min,
        tied: tied.map((r) => r.id),
        message: `No single best: ${tied.map(gatewayName).join(" and ")} share the best approval rate (${rate}) among gateways with ≥ ${min} attempts.`,
      },
    };
  }
  return {
    best: top.id,
    reason: {
      kind: "best",
      min_attempts: min,
      eligible: eligible.length,
      message: `${bestLabel(min)}: ${gatewayName(top)}, ${rate} (${approvalRateTitle(top)})${eligible.length === 1 ? ", the only gateway with that many" : ` of ${eligible.length} such gateways`}.`,
    },
  };
}

/**
 * Evidence per distinct asked BIN from the report's records (grouped by bin, gateway_id and maybe
 * gateway_alias; records for other BINs are ignored). A gateway's figures are the sums of its records,
 * its rates the ratios of those sums. `knownNames`: gateway aliases already known (id → alias), used
 * when the records carry none.
 */
export function buildEvidence(
  bins: readonly string[],
  records: readonly ReportRecord[],
  minAttempts: number = BIN_EVIDENCE_MIN_ATTEMPTS,
  knownNames: Readonly<Record<string, string>> = {},
): BinEvidence[] {
  const byBin = new Map<string, Map<string | null, ReportRecord[]>>();
  const names = new Map<string, string>(Object.entries(knownNames));
  for (const r of records) {
    const bin = toText(r.bin);
    if (bin === null) continue;
    const id = toText(r.gateway_id);
    const alias = toText(r.gateway_alias);
    if (id !== null && alias !== null) names.set(id, alias);
    let gateways = byBin.get(bin);
    if (!gateways) byBin.set(bin, (gateways = new Map()));
    let list = gateways.get(id);
    if (!list) gateways.set(id, (list = []));
    list.push(r);
  }
  return distinctBins(bins).map((bin) => {
    const key = reportBin(bin);
    const gateways = byBin.get(key) ?? new Map<string | null, ReportRecord[]>();
    const rows: EvidenceRow[] = [...gateways].map(([id, recs]) => {
      const f = figures(recs);
      return { id, name: id === null ? null : (names.get(id) ?? null), ...f, enough: id !== null && f.attempts >= Math.max(1, minAttempts) };
    });
    rows.sort((a, b) => b.attempts - a.attempts || byId(a.id, b.id));
    const { best, reason } = chooseBest(rows, minAttempts);
    return { bin, report_bin: key, gateways: rows, totals: figures([...gateways.values()].flat()), best, best_reason: reason };
  });
}

/** How long the browser waits before asking again about a pending report: near its start, 1–5 s. */
export function pendingDelay<P extends Pick<EvidencePending, "estimated_start">>(p: P, now: number): number {
  const at = p.estimated_start ? Date.parse(p.estimated_start) : NaN;
  return Math.min(5_000, Math.max(1_000, Number.isFinite(at) ? at - now : 1_000));
}

/** "6 digits" note for a BIN longer than the reports' BIN, or null. */
export function reportBinNote(bin: string): string | null {
  return bin.length > REPORT_BIN_DIGITS
    ? `Reports know BINs by their first ${REPORT_BIN_DIGITS} digits, so these figures are for ${reportBin(bin)}: every card starting with those digits, not only ${bin}.`
    : null;
}

/** One line for a BIN's best gateway (the bulk table's column and its CSV). */
export function bestSummary(e: BinEvidence): string {
  const r = e.best_reason;
  switch (r.kind) {
    case "best": {
      const top = e.gateways.find((g) => g.id === e.best);
      return top ? `${gatewayName(top)}: ${formatValue(top.approval_rate, "percent")} of ${formatValue(top.attempts, "count")} attempts` : "—";
    }
    case "tie": {
      const tied = r.tied.flatMap((id) => e.gateways.filter((g) => g.id === id));
      return `None (tie: ${tied.map(gatewayName).join(", ")} at ${formatValue(tied[0]?.approval_rate, "percent")})`;
    }
    case "too_few_attempts":
      return `None: no gateway has ≥ ${r.min_attempts} attempts`;
    case "no_data":
      return "None: no attempts in these 90 days";
  }
}

/** Body of POST /api/bin-lookup/evidence. */
export const BinEvidenceRequestSchema = z.strictObject({
  bins: z
    .array(z.string().regex(/^\d{6,8}$/, { error: "each BIN must be a string of 6 to 8 digits" }))
    .min(1, { error: "bins must list at least one BIN" })
    .max(MAX_BULK_BINS, { error: `bins takes at most ${MAX_BULK_BINS} BINs` }),
});
