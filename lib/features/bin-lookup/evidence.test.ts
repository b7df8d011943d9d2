import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract/schemas";
import {
  BinEvidenceRequestSchema,
  bestLabel,
  bestSummary,
  buildEvidence,
  chooseBest,
  evidenceRange,
  evidenceRequest,
  pendingDelay,
  reportBin,
  type EvidenceRow,
} from "./evidence";
import { MAX_BULK_BINS } from "./lookup";

const rec = (bin: string, gateway_id: number | null, attempts: number, approvals: number, cb_count: number, gateway_alias: string | null = null): ReportRecord => ({
  bin,
  gateway_id,
  gateway_alias,
  attempts,
  approvals,
  cb_count,
});

const row = (id: string, attempts: number, approvals: number): EvidenceRow => ({
  id,
  name: null,
  attempts,
  approvals,
  approval_rate: attempts ? approvals / attempts : null,
  cb_count: 0,
  cb_rate: null,
  enough: attempts >= 30,
});

describe("the evidence report", () => {
  it("covers the 90 full days before today and filters on each BIN's first 6 digits, once each", () => {
    const range = evidenceRange("2025-07-31", "Europe/Berlin");
    expect(range).toEqual({ start_date: "2025-05-02", end_date: "2025-07-30", days: 90, time_zone: "Europe/Berlin" });
    expect(evidenceRequest(range, ["41472012", "414720", "51051099"])).toEqual({
      start_date: "2025-05-02",
      end_date: "2025-07-30",
      group_by: ["bin", "gateway_id", "gateway_alias"],
      metrics: ["attempts", "approvals", "cb_count"],
      filters: { bin: ["414720", "510510"] },
    });
    expect(reportBin("41472012")).toBe("414720");
  });

  it("accepts 1 to 100 BINs of 6 to 8 digits", () => {
    expect(BinEvidenceRequestSchema.safeParse({ bins: ["414720", "41472012"] }).success).toBe(true);
    expect(BinEvidenceRequestSchema.safeParse({ bins: [] }).success).toBe(false);
    expect(BinEvidenceRequestSchema.safeParse({ bins: ["41472"] }).success).toBe(false);
    expect(BinEvidenceRequestSchema.safeParse({ bins: ["414720123"] }).success).toBe(false);
    expect(BinEvidenceRequestSchema.safeParse({ bins: ["414720"], extra: 1 }).success).toBe(false);
    const many = Array.from({ length: MAX_BULK_BINS + 1 }, (_, i) => String(400000 + i));
    expect(BinEvidenceRequestSchema.safeParse({ bins: many.slice(0, MAX_BULK_BINS) }).success).toBe(true);
    expect(BinEvidenceRequestSchema.safeParse({ bins: many }).success).toBe(false);
  });
});

describe("evidence per BIN and gateway", () => {
  it("sums a gateway's records and takes rates as ratios of the sums, never averages of rates", () => {
    // Gateway 12 over two aliases' records (e.g. renamed): 10/10 and 10/90 → 20/100, not (100% + 11%) / 2.
    const [e] = buildEvidence(["414720"], [rec("414720", 12, 10, 10, 1, "Chase East"), rec("414720", 12, 90, 10, 1, "Chase East"), rec("414720", 7, 40, 30, 3, "Adyen")], 30);
    expect(e!.gateways).toEqual([
      { id: "12", name: "Chase East", attempts: 100, approvals: 20, approval_rate: 0.2, cb_count: 2, cb_rate: 0.1, enough: true },
      { id: "7", name: "Adyen", attempts: 40, approvals: 30, approval_rate: 0.75, cb_count: 3, cb_rate: 0.1, enough: true },
    ]);
    // Totals are the sums' ratios too: 50 / 140 and 5 / 50.
    expect(e!.totals).toEqual({ attempts: 140, approvals: 50, approval_rate: 50 / 140, cb_count: 5, cb_rate: 0.1 });
    expect(e!.best).toBe("7");
    expect(e!.best_reason).toMatchObject({ kind: "best", min_attempts: 30, eligible: 2 });
    expect(e!.best_reason.message).toBe(`${bestLabel(30)}: Adyen (#7), 75.00% (30 approvals ÷ 40 attempts) of 2 such gateways.`);
  });

  it("uses the product's chargeback-rate KPI: chargebacks ÷ approvals, none without approvals", () => {
    const [e] = buildEvidence(["414720"], [rec("414720", 3, 50, 0, 0), rec("414720", 4, 50, 25, 5)]);
    expect(e!.gateways.find((g) => g.id === "3")).toMatchObject({ approval_rate: 0, cb_rate: null });
    expect(e!.gateways.find((g) => g.id === "4")).toMatchObject({ approval_rate: 0.5, cb_rate: 0.2 });
  });

  it("maps an 8-digit BIN to its first 6 and ignores other BINs' records", () => {
    const records = [rec("414720", 12, 40, 20, 0), rec("510510", 12, 999, 999, 0)];
    const [long, short] = buildEvidence(["41472012", "414720"], records, 30);
    expect(long).toMatchObject({ bin: "41472012", report_bin: "414720", best: "12" });
    expect(long!.gateways).toHaveLength(1);
    expect(long!.gateways[0]).toMatchObject({ attempts: 40, approvals: 20 });
    expect(short!.gateways).toEqual(long!.gateways);
  });

  it("lists each distinct BIN once, in the order asked", () => {
    expect(buildEvidence(["510510", "414720", "510510"], []).map((e) => e.bin)).toEqual(["510510", "414720"]);
  });

  it("says plainly when a BIN has no data", () => {
    const [e] = buildEvidence(["123456"], [rec("414720", 12, 40, 20, 0)], 30);
    expect(e).toMatchObject({ bin: "123456", report_bin: "123456", gateways: [], best: null, best_reason: { kind: "no_data" } });
    expect(e!.totals).toEqual({ attempts: 0, approvals: 0, approval_rate: null, cb_count: 0, cb_rate: null });
  });

  it("names gateways from the records, else from names already known, else not at all", () => {
    const [e] = buildEvidence(["414720"], [rec("414720", 1, 5, 1, 0, "One"), rec("414720", 2, 4, 1, 0), rec("414720", 3, 3, 1, 0)], 30, { "2": "Two" });
    expect(e!.gateways.map((g) => [g.id, g.name])).toEqual([
      ["1", "One"],
      ["2", "Two"],
      ["3", null],
    ]);
  });
});

describe("the best gateway", () => {
  it("needs the minimum attempts: a 100% rate on 29 attempts is not evidence", () => {
    const { best, reason } = chooseBest([row("1", 29, 29), row("2", 30, 15)], 30);
    expect(best).toBe("2");
    expect(reason).toMatchObject({ kind: "best", eligible: 1 });
    expect(reason.message).toContain("the only gateway with that many");
  });

  it("names none when no gateway has enough attempts, and says so", () => {
    const { best, reason } = chooseBest([row("1", 29, 29), row("2", 10, 5)], 30);
    expect(best).toBeNull();
    expect(reason).toEqual({
      kind: "too_few_attempts",
      min_attempts: 30,
      message: "No gateway has 30 or more attempts with this BIN in these 90 days, so none is called best: too few attempts to compare approval rates.",
    });
  });

  it("treats exactly equal rates as a tie and names none (1/3 = 20/60, compared without rounding)", () => {
    const { best, reason } = chooseBest([row("1", 30, 10), row("2", 60, 20), row("3", 100, 30)], 30);
    expect(best).toBeNull();
    expect(reason).toMatchObject({ kind: "tie", tied: ["1", "2"] });
    expect(reason.message).toBe("No single best: MID #1 and MID #2 share the best approval rate (33.33%) among gateways with ≥ 30 attempts.");
  });

  it("does not call a hair's difference a tie", () => {
    // 2000/3000 vs 2001/3001: 66.67% vs 66.68%, distinct.
    expect(chooseBest([row("1", 3000, 2000), row("2", 3001, 2001)], 30).best).toBe("2");
  });

  it("never picks the records without a gateway", () => {
    const rows: EvidenceRow[] = [{ ...row("x", 500, 500), id: null, enough: false }, row("2", 40, 10)];
    expect(chooseBest(rows, 30).best).toBe("2");
  });

  it("honours another minimum", () => {
    expect(chooseBest([row("1", 5, 5), row("2", 50, 10)], 5).best).toBe("1");
  });
});

describe("polling a pending report", () => {
  it("asks again near the estimated start, between 1 and 5 s", () => {
    const base = { state: "pending" as const, range: evidenceRange("2025-07-31", "UTC"), min_attempts: 30, position: 0 };
    const now = Date.parse("2025-07-31T12:00:00Z");
    expect(pendingDelay({ ...base, phase: "queued", estimated_start: "2025-07-31T12:00:03Z" }, now)).toBe(3_000);
    expect(pendingDelay({ ...base, phase: "queued", estimated_start: "2025-07-31T12:01:00Z" }, now)).toBe(5_000);
    expect(pendingDelay({ ...base, phase: "fetching", estimated_start: null }, now)).toBe(1_000);
  });
});

describe("the one-line summary", () => {
  it("names the best gateway, a tie, or why there is none, in words", () => {
    const [best, tie, few, none] = buildEvidence(
      ["111111", "222222", "333333", "444444"],
      [
        rec("111111", 7, 40, 30, 0, "Adyen"),
        rec("111111", 8, 1_000, 10, 0),
        rec("222222", 1, 30, 10, 0),
        rec("222222", 2, 60, 20, 0, "Two"),
        rec("333333", 1, 29, 29, 0),
      ],
      30,
    );
    expect(bestSummary(best!)).toBe("Adyen (#7): 75.00% of 40 attempts");
    expect(bestSummary(tie!)).toBe("None (tie: MID #1, Two (#2) at 33.33%)");
    expect(bestSummary(few!)).toBe("None: no gateway has ≥ 30 attempts");
    expect(bestSummary(none!)).toBe("None: no attempts in these 90 days");
  });
});
