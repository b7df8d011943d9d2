import { afterEach, describe, expect, it, vi } from "vitest";
import type { ReportRecord } from "@/lib/contract/records";
import { DEFAULT_MONITOR_CONFIG, type MonitorConfig, type Program } from "./definitions";
import {
  disputeRows,
  evaluatePrograms,
  midKey,
  MONITOR_METRICS,
  midSums,
  previousMonth,
  statusOf,
  thresholdsInForce,
  worstFirst,
  type MidSums,
  type MonthData,
  type ProgramRow,
} from "./evaluate";

// ---- hand-built months ------------------------------------------------------------------------

type Alerts = Partial<Record<"ETHOCA" | "CDRN" | "RDR", number>>;

function mid(gatewayId: number, cardBrand: string, sales: number, chargebacks: number, alerts: Alerts = {}): MidSums {
  return {
    gatewayId,
    gatewayName: `MID ${gatewayId}`,
    cardBrand,
    sales,
    chargebacks,
    chargebackCents: chargebacks * 5000,
    alerts: {
      ETHOCA: { count: alerts.ETHOCA ?? 0, cents: (alerts.ETHOCA ?? 0) * 5000 },
      CDRN: { count: alerts.CDRN ?? 0, cents: (alerts.CDRN ?? 0) * 5000 },
      RDR: { count: alerts.RDR ?? 0, cents: (alerts.RDR ?? 0) * 5000 },
    },
  };
}

function daysIn(month: string): number {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function monthOf(month: string, mids: MidSums[], daysElapsed = daysIn(month)): MonthData {
  return { month, daysInMonth: daysIn(month), daysElapsed, mids: new Map(mids.map((m) => [midKey(m.gatewayId, m.cardBrand), m])) };
}

const monthsOf = (...months: MonthData[]) => new Map(months.map((m) => [m.month, m]));

const program = (id: string): Program => {
  const p = DEFAULT_MONITOR_CONFIG.programs.find((x) => x.id === id);
  if (!p) throw new Error(`no programme ${id}`);
  return p;
};
const ONLY = (id: string): MonitorConfig => ({ ...DEFAULT_MONITOR_CONFIG, programs: [program(id)] });
const MC = ONLY("mastercard-ecp");
const VAMP = ONLY("visa-vamp");

/** The one row of a programme, month and MID. */
function rowOf(rows: readonly ProgramRow[], month: string, gatewayId: number): ProgramRow {
  const found = rows.filter((r) => r.month === month && r.gatewayId === gatewayId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Mastercard: `chargebacks` in March 2026 against `februarySales` in February. */
function mastercardMarch(chargebacks: number, februarySales: number): ProgramRow {
  const months = monthsOf(monthOf("2026-02", [mid(1, "MASTERCARD", februarySales, 0)]), monthOf("2026-03", [mid(1, "MASTERCARD", 0, chargebacks)]));
  return rowOf(evaluatePrograms(MC, months, ["2026-03"]), "2026-03", 1);
}

/** VAMP: `disputes` chargebacks against `sales` in the same month. */
function vamp(month: string, disputes: number, sales: number, alerts: Alerts = {}): ProgramRow {
  return rowOf(evaluatePrograms(VAMP, monthsOf(monthOf(month, [mid(1, "VISA", sales, disputes, alerts)])), [month]), month, 1);
}

// ---- midSums ------------------------------------------------------------------------------------

describe("midSums", () => {
  it("sums a monthly report by MID and card brand; alert metrics by their alert type, cents exact", () => {
    const records: ReportRecord[] = [
      { gateway_id: 7, gateway_alias: "Alpha", card_brand: "VISA", alert_type: null, net_approvals: 1000, cb_count_by_cb_date: 12, cb_amount_by_cb_date: 0.1 },
      { gateway_id: 7, gateway_alias: "Alpha", card_brand: "VISA", alert_type: null, net_approvals: 500, cb_count_by_cb_date: 3, cb_amount_by_cb_date: 0.2 },
      { gateway_id: 7, gateway_alias: "Alpha", card_brand: "VISA", alert_type: "RDR", alert_count_by_alert_date: 4, alert_by_alert_date: 0.1 },
      { gateway_id: 7, gateway_alias: "Alpha", card_brand: "VISA", alert_type: "RDR", alert_count_by_alert_date: 1, alert_by_alert_date: 0.2 },
      { gateway_id: 7, gateway_alias: "Alpha", card_brand: "VISA", alert_type: "ETHOCA", alert_count_by_alert_date: 2, alert_by_alert_date: 59.98 },
      { gateway_id: 7, gateway_alias: "Alpha", card_brand: "MASTERCARD", alert_type: null, net_approvals: 300, cb_count_by_cb_date: null, cb_amount_by_cb_date: null },
      { gateway_id: 8, gateway_alias: "Beta", card_brand: "VISA", alert_type: null, net_approvals: 10, cb_count_by_cb_date: 0, cb_amount_by_cb_date: 0 },
    ];
    const sums = midSums(records);
    expect([...sums.keys()].sort()).toEqual(["7|MASTERCARD", "7|VISA", "8|VISA"]);
    const visa = sums.get(midKey(7, "VISA"))!;
    expect(visa).toMatchObject({ gatewayId: 7, gatewayName: "Alpha", cardBrand: "VISA", sales: 1500, chargebacks: 15, chargebackCents: 30 });
    expect(visa.alerts).toEqual({ ETHOCA: { count: 2, cents: 5998 }, CDRN: { count: 0, cents: 0 }, RDR: { count: 5, cents: 30 } });
    expect(sums.get(midKey(7, "MASTERCARD"))).toMatchObject({ sales: 300, chargebacks: 0, chargebackCents: 0 });
  });

  it("counts a MID's sales as every approved attempt, cascades included (net_approvals), not approvals", () => {
    const sums = midSums([{ gateway_id: 7, gateway_alias: "Alpha", card_brand: "VISA", alert_type: null, approvals: 90, net_approvals: 100, cb_count_by_cb_date: 2 }]);
    expect(sums.get(midKey(7, "VISA"))?.sales).toBe(100);
    expect(MONITOR_METRICS).toContain("net_approvals");
    expect(MONITOR_METRICS).not.toContain("approvals");
  });

  it("takes the MID's name from whichever record carries it", () => {
    const sums = midSums([
      { gateway_id: 7, gateway_alias: null, card_brand: "VISA", alert_type: null, net_approvals: 1 },
      { gateway_id: 7, gateway_alias: "Alpha", card_brand: "VISA", alert_type: null, net_approvals: 1 },
    ]);
    expect(sums.get(midKey(7, "VISA"))?.gatewayName).toBe("Alpha");
  });
});

// ---- thresholds in force ------------------------------------------------------------------------

describe("thresholdsInForce", () => {
  it("takes VAMP's 2.2 % through March 2026 and 1.5 % from April 2026", () => {
    const p = program("visa-vamp");
    expect(thresholdsInForce(p, "2025-12").map((t) => t.ratio)).toEqual([0.022]);
    expect(thresholdsInForce(p, "2026-03").map((t) => t.ratio)).toEqual([0.022]);
    expect(thresholdsInForce(p, "2026-04").map((t) => t.ratio)).toEqual([0.015]);
    expect(thresholdsInForce(p, "2027-01").map((t) => t.ratio)).toEqual([0.015]);
  });

  it("knows a leap February's last day", () => {
    const p: Program = {
      ...program("visa-vamp"),
      thresholds: [
        { level: "excessive", ratio: 0.02, minCount: 1, until: "2024-02-29" },
        { level: "excessive", ratio: 0.01, minCount: 1, from: "2024-03-01" },
      ],
    };
    expect(thresholdsInForce(p, "2024-02").map((t) => t.ratio)).toEqual([0.02]);
    expect(thresholdsInForce(p, "2024-03").map((t) => t.ratio)).toEqual([0.01]);
  });

  describe("chooses by the month evaluated, never by today", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it.each([
      ["2024-01-15T12:00:00Z"],
      ["2026-03-15T12:00:00Z"],
      ["2026-05-20T12:00:00Z"],
      ["2030-01-01T00:00:00Z"],
    ])("today %s: March 2026 at 2.0 % is ok, April 2026 at 2.0 % is excessive", (now) => {
      vi.useFakeTimers({ now: new Date(now) });
      expect(vamp("2026-03", 1600, 80_000).actual.level).toBe("ok");
      expect(vamp("2026-03", 1600, 80_000).lowest?.ratio).toBe(0.022);
      expect(vamp("2026-04", 1600, 80_000).actual.level).toBe("excessive");
      expect(vamp("2026-04", 1600, 80_000).lowest?.ratio).toBe(0.015);
    });
  });
});

// ---- statusOf -----------------------------------------------------------------------------------

describe("statusOf", () => {
  const mc = program("mastercard-ecp").thresholds;

  it("is the highest level whose ratio and minimum count are both reached", () => {
    expect(statusOf(mc, 99, 0.05).level).toBe("ok");
    expect(statusOf(mc, 100, 0.012).level).toBe("monitored");
    expect(statusOf(mc, 100, 0.05)).toEqual({ level: "excessive", threshold: mc[1] });
    expect(statusOf(mc, 300, 0.03)).toEqual({ level: "high_excessive", threshold: mc[2] });
    expect(statusOf(mc, 10_000, 0.0099).level).toBe("ok");
  });

  it("has no status without a ratio, and none without thresholds", () => {
    expect(statusOf(mc, 10_000, null)).toEqual({ level: "ok", threshold: null });
    expect(statusOf([], 10_000, 1)).toEqual({ level: "ok", threshold: null });
  });
});

// ---- evaluatePrograms ---------------------------------------------------------------------------

describe("evaluatePrograms: Mastercard ECP", () => {
  it("divides a month's chargebacks by the preceding month's sales", () => {
    const months = monthsOf(
      monthOf("2026-02", [mid(1, "MASTERCARD", 10_000, 999)]),
      monthOf("2026-03", [mid(1, "MASTERCARD", 1, 150)]),
    );
    const r = rowOf(evaluatePrograms(MC, months, ["2026-03"]), "2026-03", 1);
    expect(r.actual).toMatchObject({ numerator: 150, denominator: 10_000, ratio: 0.015, level: "excessive" });
    expect(r.projected).toBeNull();
    expect(r).toMatchObject({ cardBrand: "MASTERCARD", gatewayName: "MID 1", month: "2026-03" });
  });

  it("uses December's sales for January, across the year", () => {
    expect(previousMonth("2026-01")).toBe("2025-12");
    const months = monthsOf(monthOf("2025-12", [mid(1, "MASTERCARD", 20_000, 0)]), monthOf("2026-01", [mid(1, "MASTERCARD", 500, 200)]));
    expect(rowOf(evaluatePrograms(MC, months, ["2026-01"]), "2026-01", 1).actual).toMatchObject({ denominator: 20_000, ratio: 0.01, level: "monitored" });
  });

  it.each([
    [99, 1_980, "ok"], // 5 %, one chargeback short
    [100, 2_000, "excessive"], // 5 %, but not 300 chargebacks
    [100, 10_000, "monitored"], // exactly 1.0 %
    [100, 6_667, "monitored"], // 1.4999 %
    [150, 10_000, "excessive"], // exactly 1.5 %
    [300, 10_000, "high_excessive"], // exactly 3.0 % and 300
    [299, 8_540, "excessive"], // 3.5 %, one chargeback short of high excessive
    [99, 100, "ok"], // 99 %, still short
  ] as const)("%i chargebacks on %i sales the month before: %s", (chargebacks, sales, level) => {
    expect(mastercardMarch(chargebacks, sales).actual.level).toBe(level);
  });

  it("has no ratio and no status when the preceding month had no sales (and divides by nothing)", () => {
    const r = mastercardMarch(500, 0);
    expect(r.actual).toEqual({ numerator: 500, denominator: 0, ratio: null, level: "ok", threshold: null });
  });

  it("has no ratio when the preceding month is not among the months given", () => {
    const r = rowOf(evaluatePrograms(MC, monthsOf(monthOf("2026-03", [mid(1, "MASTERCARD", 9_999, 500)])), ["2026-03"]), "2026-03", 1);
    expect(r.actual).toMatchObject({ numerator: 500, denominator: 0, ratio: null, level: "ok" });
  });

  it("shows a MID that sold last month and has no chargebacks this month", () => {
    const months = monthsOf(monthOf("2026-02", [mid(1, "MASTERCARD", 5_000, 0)]), monthOf("2026-03", []));
    expect(rowOf(evaluatePrograms(MC, months, ["2026-03"]), "2026-03", 1).actual).toMatchObject({ numerator: 0, denominator: 5_000, ratio: 0, level: "ok" });
  });

  it("only counts chargebacks, never alerts, and only Mastercard MIDs", () => {
    const months = monthsOf(
      monthOf("2026-02", [mid(1, "MASTERCARD", 10_000, 0), mid(1, "VISA", 10_000, 0)]),
      monthOf("2026-03", [mid(1, "MASTERCARD", 0, 50, { ETHOCA: 500, CDRN: 500, RDR: 500 }), mid(1, "VISA", 0, 900)]),
    );
    const rows = evaluatePrograms(MC, months, ["2026-03"]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.cardBrand).toBe("MASTERCARD");
    expect(rows[0]?.actual.numerator).toBe(50);
  });

  it("evaluates every month asked for, skipping months it was not given", () => {
    const months = monthsOf(
      monthOf("2026-01", [mid(1, "MASTERCARD", 10_000, 0)]),
      monthOf("2026-02", [mid(1, "MASTERCARD", 20_000, 100)]),
      monthOf("2026-03", [mid(1, "MASTERCARD", 0, 300)]),
    );
    const rows = evaluatePrograms(MC, months, ["2026-03", "2026-02", "2025-12"]);
    expect(rows.map((r) => [r.month, r.actual.ratio, r.actual.level])).toEqual([
      ["2026-03", 0.015, "excessive"],
      ["2026-02", 0.01, "monitored"],
    ]);
  });
});

describe("evaluatePrograms: Visa VAMP", () => {
  it("divides disputes by the same month's sales", () => {
    const months = monthsOf(monthOf("2026-03", [mid(1, "VISA", 1_000_000, 0)]), monthOf("2026-04", [mid(1, "VISA", 100_000, 1_600)]));
    expect(rowOf(evaluatePrograms(VAMP, months, ["2026-04"]), "2026-04", 1).actual).toMatchObject({ numerator: 1_600, denominator: 100_000, ratio: 0.016 });
  });

  it("changes threshold on 2026-04-01: 2.0 % with 1,600 disputes is ok in March, excessive in April", () => {
    expect(vamp("2026-03", 1_600, 80_000).actual).toMatchObject({ ratio: 0.02, level: "ok", threshold: null });
    const april = vamp("2026-04", 1_600, 80_000).actual;
    expect(april).toMatchObject({ ratio: 0.02, level: "excessive" });
    expect(april.threshold).toMatchObject({ ratio: 0.015, from: "2026-04-01" });
    expect(vamp("2026-03", 1_760, 80_000).actual.level).toBe("excessive"); // exactly 2.2 %
  });

  it("needs more than 1,500 disputes: exactly 1,500 is never enough, 1,501 is", () => {
    expect(vamp("2026-04", 1_500, 75_000).actual.level).toBe("ok"); // 2.0 %
    expect(vamp("2026-04", 1_500, 15_000).actual.level).toBe("ok"); // 10 %
    expect(vamp("2026-03", 1_500, 15_000).actual.level).toBe("ok");
    expect(vamp("2026-04", 1_501, 75_050).actual.level).toBe("excessive");
  });

  it("counts RDR and CDRN alerts as disputes, Ethoca not", () => {
    const r = vamp("2026-04", 1_000, 100_000, { RDR: 300, CDRN: 250, ETHOCA: 5_000 });
    expect(r.actual).toMatchObject({ numerator: 1_550, ratio: 0.0155, level: "excessive" });
    expect(vamp("2026-04", 1_000, 100_000, { ETHOCA: 5_000 }).actual).toMatchObject({ numerator: 1_000, level: "ok" });
  });

  it("counts alerts alone when there were no chargebacks", () => {
    expect(vamp("2026-04", 0, 50_000, { RDR: 1_000, CDRN: 600 }).actual).toMatchObject({ numerator: 1_600, ratio: 0.032, level: "excessive" });
  });

  it("has no ratio with no sales in the month", () => {
    const r = vamp("2026-04", 2_000, 0, { RDR: 10 });
    expect(r.actual).toEqual({ numerator: 2_010, denominator: 0, ratio: null, level: "ok", threshold: null });
  });

  it("follows a configuration that counts Ethoca too", () => {
    const withEthoca: MonitorConfig = { ...VAMP, programs: [{ ...program("visa-vamp"), numerator: { chargebacks: true, alertTypes: ["ETHOCA"] } }] };
    const months = monthsOf(monthOf("2026-04", [mid(1, "VISA", 100_000, 1_000, { ETHOCA: 600, RDR: 900 })]));
    expect(rowOf(evaluatePrograms(withEthoca, months, ["2026-04"]), "2026-04", 1).actual.numerator).toBe(1_600);
  });
});

describe("evaluatePrograms: the month to date", () => {
  it("projects a preceding-month programme: the count scaled by days in month ÷ days elapsed, the sales as they are", () => {
    const months = monthsOf(
      monthOf("2026-03", [mid(1, "MASTERCARD", 10_000, 0)]),
      monthOf("2026-04", [mid(1, "MASTERCARD", 2_000, 50)], 10), // 10 of 30 days
    );
    const r = rowOf(evaluatePrograms(MC, months, ["2026-04"]), "2026-04", 1);
    expect(r.actual).toMatchObject({ numerator: 50, denominator: 10_000, ratio: 0.005, level: "ok" });
    expect(r.projected).toMatchObject({ numerator: 150, denominator: 10_000, level: "excessive" });
    expect(r.projected?.ratio).toBeCloseTo(0.015, 12);
  });

  it("projects a same-month programme: count and sales both scaled, so the ratio stays and the minimum count can be reached", () => {
    const r = rowOf(
      evaluatePrograms(VAMP, monthsOf(monthOf("2026-04", [mid(1, "VISA", 30_000, 500, { RDR: 100 })], 10)), ["2026-04"]),
      "2026-04",
      1,
    );
    expect(r.actual).toMatchObject({ numerator: 600, denominator: 30_000, ratio: 0.02, level: "ok" });
    expect(r.projected).toMatchObject({ numerator: 1_800, denominator: 90_000, level: "excessive" });
    expect(r.projected?.ratio).toBeCloseTo(0.02, 12);
  });

  it("scales by the month's own length (February, 7 of 28 days)", () => {
    const months = monthsOf(monthOf("2026-01", [mid(1, "MASTERCARD", 10_000, 0)]), monthOf("2026-02", [mid(1, "MASTERCARD", 0, 100)], 7));
    const r = rowOf(evaluatePrograms(MC, months, ["2026-02"]), "2026-02", 1);
    expect(r.actual).toMatchObject({ numerator: 100, ratio: 0.01, level: "monitored" });
    expect(r.projected).toMatchObject({ numerator: 400, denominator: 10_000, ratio: 0.04, level: "high_excessive" });
  });

  it("keeps a same-month projection at the actual ratio exactly, so it never falls under a threshold the actual ratio meets", () => {
    // 471 ÷ 31,400 is 1.5 %; scaled by 30 ÷ 7 both ways and divided again, it came out 1.4999…98 %.
    const r = rowOf(evaluatePrograms(VAMP, monthsOf(monthOf("2026-04", [mid(1, "VISA", 31_400, 471)], 7)), ["2026-04"]), "2026-04", 1);
    expect(r.actual).toMatchObject({ ratio: 0.015, level: "ok" }); // 471 disputes: not more than 1,500
    expect(r.projected?.numerator).toBeCloseTo(2_018.57, 2);
    expect(r.projected).toMatchObject({ ratio: 0.015, level: "excessive" });
  });

  it("projects a count that is a whole minimum exactly (45 in 5 of 28 days is 252, not 251.99…)", () => {
    const strict: MonitorConfig = {
      ...MC,
      programs: [{ ...program("mastercard-ecp"), thresholds: [{ level: "excessive", ratio: 0.001, minCount: 252 }] }],
    };
    const months = monthsOf(monthOf("2026-01", [mid(1, "MASTERCARD", 10_000, 0)]), monthOf("2026-02", [mid(1, "MASTERCARD", 0, 45)], 5));
    expect(rowOf(evaluatePrograms(strict, months, ["2026-02"]), "2026-02", 1).projected).toMatchObject({ numerator: 252, level: "excessive" });
  });

  it("has no projection for a complete month, nor before the month's first day is over", () => {
    expect(vamp("2026-04", 500, 30_000).projected).toBeNull();
    const zero = evaluatePrograms(VAMP, monthsOf(monthOf("2026-04", [mid(1, "VISA", 30_000, 500)], 0)), ["2026-04"]);
    expect(zero[0]?.projected).toBeNull();
  });

  it("projects no ratio when there is nothing to divide by", () => {
    const months = monthsOf(monthOf("2026-04", [mid(1, "MASTERCARD", 0, 80)], 10));
    const r = rowOf(evaluatePrograms(MC, months, ["2026-04"]), "2026-04", 1);
    expect(r.projected).toEqual({ numerator: 240, denominator: 0, ratio: null, level: "ok", threshold: null });
  });
});

// ---- worstFirst -------------------------------------------------------------------------------

describe("worstFirst", () => {
  it("orders by status (the projection's when worse), then by ratio against the lowest threshold, then by MID", () => {
    const months = monthsOf(
      monthOf("2026-03", [
        mid(1, "MASTERCARD", 10_000, 0),
        mid(2, "MASTERCARD", 10_000, 0),
        mid(3, "MASTERCARD", 10_000, 0),
        mid(4, "MASTERCARD", 10_000, 0),
        mid(5, "MASTERCARD", 10_000, 0),
        mid(6, "MASTERCARD", 0, 0),
      ]),
      monthOf(
        "2026-04",
        [
          mid(1, "MASTERCARD", 0, 20), // 0.2 %: ok, projected ok (60)
          mid(2, "MASTERCARD", 0, 110), // 1.1 %: monitored; projected 330 at 3.3 %: high excessive
          mid(3, "MASTERCARD", 0, 150), // 1.5 %: excessive; projected 450 at 4.5 %: high excessive
          mid(4, "MASTERCARD", 0, 40), // 0.4 %: ok; projected 120 at 1.2 %: monitored
          mid(5, "MASTERCARD", 0, 90), // 0.9 %: ok; projected 270 at 2.7 %: excessive
          mid(6, "MASTERCARD", 0, 5), // no sales: no ratio
          mid(7, "MASTERCARD", 0, 20), // no sales either (not in March)
        ],
        10,
      ),
    );
    const rows = evaluatePrograms(MC, months, ["2026-04"]);
    expect([...rows].sort(worstFirst).map((r) => r.gatewayId)).toEqual([3, 2, 5, 4, 1, 6, 7]);
  });

  it("compares against each row's lowest threshold in force", () => {
    // VAMP in April (1.5 %) at 1.2 % is closer to its threshold than Mastercard (1.0 %) at 0.8 %, though both are ok.
    const months = monthsOf(
      monthOf("2026-03", [mid(1, "MASTERCARD", 10_000, 0)]),
      monthOf("2026-04", [mid(1, "MASTERCARD", 0, 80), mid(2, "VISA", 10_000, 120)]),
    );
    const rows = evaluatePrograms(DEFAULT_MONITOR_CONFIG, months, ["2026-04"]);
    expect([...rows].sort(worstFirst).map((r) => [r.program.id, r.gatewayId])).toEqual([
      ["mastercard-ecp", 1],
      ["visa-vamp", 2],
    ]);
  });
});

// ---- disputeRows ------------------------------------------------------------------------------

describe("disputeRows", () => {
  const records: ReportRecord[] = [
    { gateway_id: 1, gateway_alias: "One", card_brand: "VISA", alert_type: null, net_approvals: 5_000, cb_count_by_cb_date: 30, cb_amount_by_cb_date: 1_499.7 },
    { gateway_id: 1, gateway_alias: "One", card_brand: "VISA", alert_type: "ETHOCA", alert_count_by_alert_date: 10, alert_by_alert_date: 0.1 },
    { gateway_id: 1, gateway_alias: "One", card_brand: "VISA", alert_type: "ETHOCA", alert_count_by_alert_date: 0, alert_by_alert_date: 0.2 },
    { gateway_id: 1, gateway_alias: "One", card_brand: "VISA", alert_type: "CDRN", alert_count_by_alert_date: 5, alert_by_alert_date: 249.95 },
    { gateway_id: 1, gateway_alias: "One", card_brand: "VISA", alert_type: "RDR", alert_count_by_alert_date: 5, alert_by_alert_date: 199.99 },
    { gateway_id: 2, gateway_alias: "Two", card_brand: "MASTERCARD", alert_type: null, net_approvals: 100, cb_count_by_cb_date: 4, cb_amount_by_cb_date: 200 },
    { gateway_id: 3, gateway_alias: "Three", card_brand: "VISA", alert_type: null, net_approvals: 100, cb_count_by_cb_date: 0, cb_amount_by_cb_date: 0 },
  ];
  const month: MonthData = { month: "2026-04", daysInMonth: 30, daysElapsed: 30, mids: midSums(records) };

  it("caught share = alerts ÷ (alerts + chargebacks); cost = count × cost per type; prevented = the alerts' amounts, in exact cents", () => {
    const rows = disputeRows(DEFAULT_MONITOR_CONFIG, month);
    const one = rows.find((r) => r.gatewayId === 1)!;
    expect(one).toMatchObject({ month: "2026-04", gatewayName: "One", cardBrand: "VISA", chargebacks: 30, chargebackCents: 149_970 });
    expect(one.caughtShare).toBe(20 / 50);
    // 10 × 30.00 + 5 × 25.00 + 5 × 15.00
    expect(one.alertCostCents).toBe(50_000);
    // 0.10 + 0.20 + 249.95 + 199.99, added as cents: exactly 450.24
    expect(one.preventedCents).toBe(45_024);
    expect(Number.isInteger(one.preventedCents)).toBe(true);
  });

  it("has a caught share of 0 with chargebacks and no alerts, and leaves out MIDs with neither", () => {
    const rows = disputeRows(DEFAULT_MONITOR_CONFIG, month);
    expect(rows.map((r) => r.gatewayId).sort()).toEqual([1, 2]);
    expect(rows.find((r) => r.gatewayId === 2)).toMatchObject({ caughtShare: 0, alertCostCents: 0, preventedCents: 0 });
  });

  it("takes the cost per type from the configuration, to the cent", () => {
    const cheap: MonitorConfig = { ...DEFAULT_MONITOR_CONFIG, alertCost: { ETHOCA: 0.35, CDRN: 19.99, RDR: 0 } };
    const one = disputeRows(cheap, month).find((r) => r.gatewayId === 1)!;
    // 10 × 0.35 + 5 × 19.99 + 5 × 0
    expect(one.alertCostCents).toBe(350 + 9_995);
  });

  it("has a caught share of 1 when every dispute was an alert", () => {
    const onlyAlerts = monthOf("2026-04", [mid(9, "VISA", 100, 0, { RDR: 3 })]);
    expect(disputeRows(DEFAULT_MONITOR_CONFIG, onlyAlerts)[0]?.caughtShare).toBe(1);
  });
});
