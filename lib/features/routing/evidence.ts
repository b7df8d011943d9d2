import "server-only";
/**
 * Routing proposals from the evidence of the last 90 full days (docs/routing.md "Proposals from
 * evidence"): order-summary reports with attempts, approvals and cb_count through the dashboard's
 * report gateway (cache, fair queue, the shared quota); each key's current MID from the service's
 * preview of the live configuration; then proposeRules.
 *
 * Keys: every BIN (the reports' 6 digits) and every issuing bank. Grouping every BIN by gateway
 * would cost a page of the quota per thousand BIN-gateway pairs, tens of pages on a year of data,
 * while only a BIN with at least twice the minimum attempts can have two MIDs above it. So:
 *
 * 1. by bank + gateway_id (the banks' counts) and by bin + bank with attempts (which BINs matter, and
 *    each BIN's bank);
 * 2. by bin + gateway_id for those BINs only (at most 100 a report, the filter's limit), and for the
 *    BINs a 6-digit BIN rule names.
 *
 * A BIN is compared on its own rows. A bank is compared on the rows of its BINs that no BIN rule
 * decides (a BANK rule would route only those; a BIN rule wins over it): its bank rows less the rows
 * of its BINs that the preview shows a BIN rule deciding. Its current MID is that of its BINs no BIN
 * rule decides (they all resolve to the same group).
 */
import { todayIn } from "@/lib/contract/dates";
import { LIMITS } from "@/lib/contract/catalog";
import { ERROR_TYPES, type ErrorStatus } from "@/lib/contract/schemas";
import type { RoutingDecision } from "@/lib/contract/bin-routing";
import { ApiError } from "@/lib/contract/errors";
import { evidenceRange, type EvidenceRange } from "@/lib/features/bin-lookup/evidence";
import { getRoutingConfig, previewRouting, routingClients, type RoutingClients } from "./upstream";
import type { JobResult, ReportGateway } from "@/lib/core/upstream/gateway";
import { countsByKey, PROPOSAL_DEFAULTS, proposeRules, type MidCounts, type Proposal, type ProposalInput, type ProposalOptions } from "./proposals";
import { midName } from "@/lib/report/mid-name";

/** Queue owner of the proposals' report (one fair-queue owner for everyone asking). */
export const PROPOSALS_OWNER = "routing-proposals";
/** How long a request waits for the report before answering "pending" (the page asks again). */
export const PROPOSALS_WAIT_MS = 3_000;
/** The preview endpoint's most BINs per call. */
const PREVIEW_CHUNK = 500;

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

/** Keys with at least two MIDs of `minAttempts` attempts: only these can be proposed for. */
function comparable(counts: readonly MidCounts[], minAttempts: number): boolean {
  return counts.filter((c) => c.attempts >= minAttempts).length >= 2;
}

export const PROPOSALS_METRICS = ["attempts", "approvals", "cb_count"] as const;

/** A report request of the window. */
function windowed(range: EvidenceRange, group_by: string[], metrics: readonly string[] = PROPOSALS_METRICS, filters?: Record<string, string[]>) {
  return { start_date: range.start_date, end_date: range.end_date, group_by, metrics: [...metrics], ...(filters ? { filters } : {}) };
}

/** The first step's requests: the banks' counts, and which BINs there are with how many attempts. */
export function proposalsFirstRequests(range: EvidenceRange) {
  return { banks: windowed(range, ["bank", "gateway_id"]), bins: windowed(range, ["bin", "bank"], ["attempts"]) };
}
/** The second step's requests: the counts per gateway of `bins`, at most 100 BINs a report. */
export function proposalsBinRequests(range: EvidenceRange, bins: readonly string[]) {
  const out = [];
  for (let i = 0; i < bins.length; i += LIMITS.maxFilterValues) out.push(windowed(range, ["bin", "gateway_id"], PROPOSALS_METRICS, { bin: bins.slice(i, i + LIMITS.maxFilterValues) }));
  return out;
}

/**
 * The reports of `requests`, each from cache or waited for until `deadline`; where they stand while
 * any still waits (the one furthest back in the queue).
 */
async function reports(gateway: ReportGateway, requests: readonly object[], deadline: number, window: RoutingProposalsPending["window"]): Promise<JobResult[] | RoutingProposalsPending> {
  // Every request is submitted before any is waited for, so they queue together.
  const submitted = requests.map((r) => gateway.submit("orders", gateway.parse("orders", r), PROPOSALS_OWNER));
  const outcomes = await Promise.all(
    submitted.map(async (out): Promise<JobResult | RoutingProposalsPending> => {
      if ("cached" in out) return out.cached;
      const view = (await gateway.settle(out.job.id, Math.max(0, deadline - Date.now()))) ?? out.job;
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
    }),
  );
  const waiting = outcomes.filter((o): o is RoutingProposalsPending => "state" in o);
  const done = outcomes.filter((o): o is JobResult => !("state" in o));
  if (waiting.length === 0) return done;
  const queued = waiting.filter((w) => w.phase === "queued");
  return queued.length > 0 ? queued.reduce((a, b) => ((b.estimated_start ?? "") > (a.estimated_start ?? "") ? b : a)) : waiting[0]!;
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

/** `counts` less `minus`, gateway by gateway. */
function subtract(counts: readonly MidCounts[], minus: readonly MidCounts[]): MidCounts[] {
  return counts.map((c) => {
    const m = minus.filter((x) => x.gateway_id === c.gateway_id);
    return m.reduce((acc, x) => ({ ...acc, attempts: acc.attempts - x.attempts, approvals: acc.approvals - x.approvals, cb_count: acc.cb_count - x.cb_count }), c);
  });
}

/**
 * Proposals for BINs and banks from the last 90 full days (today−90 … today−1 in the reporting time
 * zone). "pending" while a report waits for the reporting quota (asking again joins the same jobs).
 */
export async function loadRoutingProposals(gateway: ReportGateway, opts: ProposalsOptions = {}): Promise<RoutingProposalsAnswer | RoutingProposalsPending> {
  const { waitMs = PROPOSALS_WAIT_MS, now = new Date() } = opts;
  const deadline = Date.now() + waitMs;
  const thresholds: ProposalOptions = { ...PROPOSAL_DEFAULTS, ...opts.thresholds };
  const min = thresholds.minAttempts;
  const clients = opts.clients ?? routingClients();
  const range = evidenceRange(todayIn(gateway.config.timeZone, now), gateway.config.timeZone);
  const window = { from: range.start_date, to: range.end_date };

  const live = await getRoutingConfig(clients);
  const active = [...new Set(live.config.groups.flatMap((g) => g.members.filter((m) => m.active).map((m) => String(m.gateway_id))))];
  // Only a 6-digit rule can decide a BIN as the reports know it (a longer one decides part of it).
  const ruled = new Set(live.config.rules.flatMap((r) => (r.type === "BIN" && r.enabled && r.bin_prefix.length === 6 ? [r.bin_prefix] : [])));

  const first = proposalsFirstRequests(range);
  const firstStep = await reports(gateway, [first.banks, first.bins], deadline, window);
  if ("state" in firstStep) return firstStep;
  const [bankResult, binResult] = firstStep;
  if (!bankResult || !binResult) throw new Error("the first step answers two reports");
  const bankOf = new Map<string, string>();
  const attemptsOf = new Map<string, number>();
  for (const r of binResult.data) {
    if (r.bin == null) continue;
    const bin = String(r.bin);
    if (r.bank != null) bankOf.set(bin, String(r.bank));
    attemptsOf.set(bin, (attemptsOf.get(bin) ?? 0) + Number(r.attempts ?? 0));
  }
  const wanted = [...attemptsOf].filter(([bin, n]) => n >= 2 * min || ruled.has(bin)).map(([bin]) => bin).sort();
  const secondStep = await reports(gateway, proposalsBinRequests(range, wanted), deadline, window);
  if ("state" in secondStep) return secondStep;
  const byBin = countsByKey(secondStep.flatMap((r) => r.data), "bin");

  const byBank = countsByKey(bankResult.data, "bank");
  const bankCandidates = [...byBank].filter(([, counts]) => comparable(counts, min)).map(([bank]) => bank);
  // One BIN per candidate bank that no 6-digit rule names (the most attempts first), for its current MID.
  const representative = new Map<string, string>();
  for (const [bin] of [...attemptsOf].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    const bank = bankOf.get(bin);
    if (bank !== undefined && !ruled.has(bin) && !representative.has(bank)) representative.set(bank, bin);
  }
  const toPreview = [...new Set([...wanted, ...bankCandidates.flatMap((b) => representative.get(b) ?? [])])];
  const decisions = await liveDecisions(toPreview, clients);

  const inputs: ProposalInput[] = [];
  for (const bin of wanted) {
    const counts = byBin.get(bin) ?? [];
    if (!comparable(counts, min)) continue;
    inputs.push({ kind: "BIN", key: bin, current_gateway_id: decisions.get(bin)?.gateway_id ?? null, active_gateway_ids: active, counts });
  }
  for (const bank of bankCandidates) {
    const decidedByBinRule = [...ruled].filter((bin) => bankOf.get(bin) === bank && decisions.get(bin)?.matched_by === "BIN");
    const counts = subtract(byBank.get(bank) ?? [], decidedByBinRule.flatMap((bin) => byBin.get(bin) ?? []));
    if (!comparable(counts, min)) continue;
    const rep = representative.get(bank);
    inputs.push({ kind: "BANK", key: bank, current_gateway_id: rep === undefined ? null : (decisions.get(rep)?.gateway_id ?? null), active_gateway_ids: active, counts });
  }
  const considered = inputs.filter((i) => {
    const cur = i.counts.find((c) => c.gateway_id === i.current_gateway_id);
    return cur !== undefined && cur.attempts >= min && i.counts.some((c) => c !== cur && c.attempts >= min && active.includes(c.gateway_id));
  }).length;
  const fetched_at = [bankResult, binResult, ...secondStep].map((r) => r.fetched_at).sort()[0]!;
  // MIDs named as everywhere, by the aliases the answers fetched so far carried.
  const aliases = new Map(gateway.seen.values("gateway_id").flatMap((v) => (v.label ? [[String(v.value), v.label] as const] : [])));
  const proposals = proposeRules(inputs, thresholds, (id) => midName(id, aliases.get(id)));
  return { state: "done", window, considered, proposals, thresholds, fetched_at, live_version: live.version };
}
