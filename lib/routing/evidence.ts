import "server-only";
/**
 * Routing proposals from the evidence of the last 90 full days (docs/routing.md "Proposals from
 * evidence"): ONE order-summary report grouped by bin, bank and gateway_id with attempts, approvals
 * and cb_count, through the dashboard's report gateway (cache, fair queue, the shared quota); each
 * key's current MID from the service's preview of the live configuration; then proposeRules.
 *
 * Keys: every BIN (the reports' 6 digits) and every issuing bank. A BIN is compared on its own rows.
 * A bank is compared on the rows of its BINs that no BIN rule decides (a BANK rule would route only
 * those; a BIN rule wins over it), and its current MID is theirs. Grouping by bin as well as bank
 * costs no more rows than by bin alone (a BIN has one bank), and summing them by bank gives exactly
 * what a bank + gateway_id grouping would.
 */
import { todayIn } from "@/lib/contract/dates";
import { ERROR_TYPES, type ErrorStatus, type ReportRecord } from "@/lib/contract/schemas";
import type { RoutingDecision } from "@/lib/contract/bin-routing";
import { ApiError } from "@/lib/contract/errors";
import { evidenceRange, type EvidenceRange } from "@/lib/bin-evidence-core";
import { getRoutingConfig, previewRouting, routingClients, type RoutingClients } from "@/lib/upstream/bin-routing";
import type { JobResult, ReportGateway } from "@/lib/upstream/gateway";
import { countsByKey, PROPOSAL_DEFAULTS, proposeRules, type MidCounts, type Proposal, type ProposalInput, type ProposalOptions } from "./proposals";

/** Queue owner of the proposals' report (one fair-queue owner for everyone asking). */
export const PROPOSALS_OWNER = "routing-proposals";
/** How long a request waits for the report before answering "pending" (the page asks again). */
export const PROPOSALS_WAIT_MS = 3_000;
/** The preview endpoint's most BINs per call. */
const PREVIEW_CHUNK = 500;

export const PROPOSALS_GROUP_BY = ["bin", "bank", "gateway_id"] as const;
export const PROPOSALS_METRICS = ["attempts", "approvals", "cb_count"] as const;

export interface RoutingProposalsAnswer {
  state: "done";
  /** The evidence window: the last 90 full days in the reporting time zone. */
  window: { from: string; to: string };
  /** Keys (BINs and banks) compared: a current MID with enough attempts and at least one other active MID with enough. */
  considered: number;
  /** The largest improvement first. */
  proposals: Proposal[];
  thresholds: ProposalOptions;
  /** When the report's data was fetched from the reporting service (a cached answer keeps its time). */
  fetched_at: string;
  /** The live configuration version the current MIDs were read from. */
  live_version: number;
}

export interface RoutingProposalsPending {
  state: "pending";
  window: { from: string; to: string };
  /** Waiting for the reporting quota, or being fetched. */
  phase: "queued" | "fetching";
  position: number | null;
  estimated_start: string | null;
}

export interface ProposalsOptions {
  waitMs?: number;
  thresholds?: Partial<ProposalOptions>;
  now?: Date;
  /** The service clients (tests); default the process-wide ones. */
  clients?: RoutingClients;
}

const isErrorStatus = (n: number): n is ErrorStatus => n in ERROR_TYPES;

/** The order-summary request of the window: every BIN, bank and gateway. */
export function proposalsRequest(range: EvidenceRange) {
  return { start_date: range.start_date, end_date: range.end_date, group_by: [...PROPOSALS_GROUP_BY], metrics: [...PROPOSALS_METRICS] };
}

/** The report of the window: from cache, or waited for; where it stands while it still waits. */
async function evidenceRecords(gateway: ReportGateway, range: EvidenceRange, waitMs: number): Promise<JobResult | RoutingProposalsPending> {
  const window = { from: range.start_date, to: range.end_date };
  const out = gateway.submit("orders", gateway.parse("orders", proposalsRequest(range)), PROPOSALS_OWNER);
  if ("cached" in out) return out.cached;
  const view = (await gateway.settle(out.job.id, waitMs)) ?? out.job;
  const s = view.status;
  switch (s.state) {
    case "done":
      return s.result;
    case "failed":
      throw new ApiError(isErrorStatus(s.error.status) ? s.error.status : 503, `The evidence report failed: ${s.error.message}`);
    case "cancelled":
      throw new ApiError(503, "The evidence report was cancelled before it finished; ask for proposals again.");
    case "queued":
      return { state: "pending", window, phase: "queued", position: s.position, estimated_start: s.estimated_start };
    case "fetching":
      return { state: "pending", window, phase: "fetching", position: null, estimated_start: null };
  }
}

/** Keys with at least two MIDs of `minAttempts` attempts: only these can be proposed for. */
function comparable(counts: readonly MidCounts[], minAttempts: number): boolean {
  return counts.filter((c) => c.attempts >= minAttempts).length >= 2;
}

/** The live decision of each BIN, from the service's preview in calls of at most 500 BINs. */
async function liveDecisions(bins: readonly string[], clients: RoutingClients): Promise<Map<string, RoutingDecision | null>> {
  const out = new Map<string, RoutingDecision | null>();
  for (let i = 0; i < bins.length; i += PREVIEW_CHUNK) {
    const preview = await previewRouting({ bins: bins.slice(i, i + PREVIEW_CHUNK) }, clients);
    for (const row of preview.rows) out.set(row.bin, row.live);
  }
  return out;
}

/**
 * Proposals for BINs and banks from the last 90 full days (today−90 … today−1 in the reporting time
 * zone). "pending" while the report waits for the reporting quota (asking again joins the same job).
 */
export async function loadRoutingProposals(gateway: ReportGateway, opts: ProposalsOptions = {}): Promise<RoutingProposalsAnswer | RoutingProposalsPending> {
  const { waitMs = PROPOSALS_WAIT_MS, now = new Date() } = opts;
  const thresholds: ProposalOptions = { ...PROPOSAL_DEFAULTS, ...opts.thresholds };
  const clients = opts.clients ?? routingClients();
  const range = evidenceRange(todayIn(gateway.config.timeZone, now), gateway.config.timeZone);
  const window = { from: range.start_date, to: range.end_date };

  const result = await evidenceRecords(gateway, range, waitMs);
  if ("state" in result) return result;
  const live = await getRoutingConfig(clients);
  const active = [...new Set(live.config.groups.flatMap((g) => g.members.filter((m) => m.active).map((m) => String(m.gateway_id))))];

  const records: readonly ReportRecord[] = result.data;
  const byBin = countsByKey(records, "bin");
  const bankOf = new Map<string, string>();
  for (const r of records) if (r.bin != null && r.bank != null) bankOf.set(String(r.bin), String(r.bank));
  const banks = new Set(bankOf.values());

  // A bank is compared on the BINs no BIN rule decides, so every BIN of a bank that could be is previewed.
  const bankCandidates = new Set([...countsByKey(records, "bank")].filter(([, counts]) => comparable(counts, thresholds.minAttempts)).map(([bank]) => bank));
  const toPreview = [...byBin.keys()].filter((bin) => comparable(byBin.get(bin)!, thresholds.minAttempts) || bankCandidates.has(bankOf.get(bin) ?? ""));
  const decisions = await liveDecisions(toPreview, clients);

  const inputs: ProposalInput[] = [];
  for (const bin of toPreview) {
    const counts = byBin.get(bin)!;
    if (!comparable(counts, thresholds.minAttempts)) continue;
    inputs.push({ kind: "BIN", key: bin, current_gateway_id: decisions.get(bin)?.gateway_id ?? null, active_gateway_ids: active, counts });
  }
  for (const bank of banks) {
    if (!bankCandidates.has(bank)) continue;
    const followers = new Set(toPreview.filter((bin) => bankOf.get(bin) === bank && decisions.get(bin) != null && decisions.get(bin)?.matched_by !== "BIN"));
    const [first] = followers;
    const current = first === undefined ? null : (decisions.get(first)?.gateway_id ?? null);
    const counts = countsByKey(records.filter((r) => followers.has(String(r.bin))), "bank").get(bank) ?? [];
    if (!comparable(counts, thresholds.minAttempts)) continue;
    inputs.push({ kind: "BANK", key: bank, current_gateway_id: current, active_gateway_ids: active, counts });
  }
  const considered = inputs.filter((i) => {
    const cur = i.counts.find((c) => c.gateway_id === i.current_gateway_id);
    return cur !== undefined && cur.attempts >= thresholds.minAttempts && i.counts.some((c) => c !== cur && c.attempts >= thresholds.minAttempts && active.includes(c.gateway_id));
  }).length;
  return { state: "done", window, considered, proposals: proposeRules(inputs, thresholds), thresholds, fetched_at: result.fetched_at, live_version: live.version };
}
