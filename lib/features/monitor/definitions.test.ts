import { describe, expect, it } from "vitest";
import { DEFAULT_MONITOR_CONFIG, MonitorConfigSchema, parseMonitorConfig, STATUS_LABELS, STATUS_LEVELS } from "./definitions";

/** A deep copy of the defaults as a JSON file would give them, to break one field at a time. */
const defaults = (): Record<string, unknown> & { programs: Record<string, unknown>[]; alertCost: Record<string, unknown> } =>
  JSON.parse(JSON.stringify(DEFAULT_MONITOR_CONFIG)) as ReturnType<typeof defaults>;

function thresholdsOf(config: ReturnType<typeof defaults>, program: number): Record<string, unknown>[] {
  const p = config.programs[program];
  if (!p) throw new Error(`no programme ${program}`);
  return p.thresholds as Record<string, unknown>[];
}

function messageOf(json: unknown): string {
  try {
    parseMonitorConfig(json);
  } catch (e) {
    if (e instanceof Error) return e.message;
    throw e;
  }
  throw new Error("expected parseMonitorConfig to throw");
}

describe("DEFAULT_MONITOR_CONFIG", () => {
  it("passes its own schema, also after a trip through JSON", () => {
    expect(MonitorConfigSchema.parse(DEFAULT_MONITOR_CONFIG)).toEqual(DEFAULT_MONITOR_CONFIG);
    expect(parseMonitorConfig(defaults())).toEqual(DEFAULT_MONITOR_CONFIG);
  });

  it("holds Mastercard ECP on the preceding month's sales: 1.0 % / 1.5 % / 3.0 %, 100 / 100 / 300 chargebacks, chargebacks only", () => {
    const mc = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === "mastercard-ecp");
    expect(mc).toMatchObject({ cardBrand: "MASTERCARD", numerator: { chargebacks: true, alertTypes: [] }, denominator: { month: "preceding" } });
    expect(mc?.thresholds.map((t) => [t.level, t.ratio, t.minCount, t.from, t.until])).toEqual([
      ["monitored", 0.01, 100, undefined, undefined],
      ["excessive", 0.015, 100, undefined, undefined],
      ["high_excessive", 0.03, 300, undefined, undefined],
    ]);
  });

  it("holds Visa VAMP on the same month's sales: 2.2 % until 2026-03-31, 1.5 % from 2026-04-01, more than 1,500, RDR and CDRN as disputes", () => {
    const vamp = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === "visa-vamp");
    expect(vamp).toMatchObject({ cardBrand: "VISA", numerator: { chargebacks: true, alertTypes: ["RDR", "CDRN"] }, denominator: { month: "same" } });
    expect(vamp?.thresholds.map((t) => [t.level, t.ratio, t.minCount, t.from, t.until])).toEqual([
      ["excessive", 0.022, 1501, "2025-04-01", "2026-03-31"],
      ["excessive", 0.015, 1501, "2026-04-01", undefined],
    ]);
    expect(vamp?.caveat).toMatch(/TC40/);
  });

  it("labels every status level", () => {
    expect(Object.keys(STATUS_LABELS).sort()).toEqual([...STATUS_LEVELS].sort());
  });
});

describe("parseMonitorConfig", () => {
  it("accepts a deployment's own programmes and prices", () => {
    const config = parseMonitorConfig({
      programs: [
        {
          id: "amex-watch",
          name: "Amex watch",
          cardBrand: "AMEX",
          numerator: { chargebacks: true, alertTypes: [] },
          denominator: { month: "same" },
          thresholds: [{ level: "monitored", ratio: 0.005, minCount: 0, from: "2024-02-01", until: "2024-02-29" }],
        },
      ],
      alertCost: { ETHOCA: 29.5, CDRN: 0, RDR: 12.05 },
    });
    expect(config.programs[0]?.cardBrand).toBe("AMEX");
    expect(config.alertCost.RDR).toBe(12.05);
  });

  it.each([
    [
      "a negative ratio",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 0)[1]!.ratio = -0.015;
      },
      "programs.0.thresholds.1.ratio",
    ],
    [
      "a ratio above 100 %",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 0)[0]!.ratio = 1.5;
      },
      "programs.0.thresholds.0.ratio",
    ],
    [
      "a fractional minimum count",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 1)[0]!.minCount = 1500.5;
      },
      "programs.1.thresholds.0.minCount",
    ],
    [
      "an unknown card brand",
      (c: ReturnType<typeof defaults>) => {
        c.programs[1]!.cardBrand = "JCB";
      },
      "programs.1.cardBrand",
    ],
    [
      "an unknown alert type",
      (c: ReturnType<typeof defaults>) => {
        c.programs[1]!.numerator = { chargebacks: true, alertTypes: ["RDR", "VERIFI"] };
      },
      "programs.1.numerator.alertTypes.1",
    ],
    [
      "a date that does not exist",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 1)[0]!.until = "2026-02-30";
      },
      "programs.1.thresholds.0.until",
    ],
    [
      "a date in another format",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 1)[1]!.from = "01/04/2026";
      },
      "programs.1.thresholds.1.from",
    ],
    [
      "a start inside a month",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 1)[1]!.from = "2026-04-15";
      },
      "programs.1.thresholds.1.from",
    ],
    [
      "an end inside a month",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 1)[0]!.until = "2026-03-30";
      },
      "programs.1.thresholds.0.until",
    ],
    [
      "an end before the start",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 1)[1]!.until = "2026-03-31";
      },
      "programs.1.thresholds.1.until",
    ],
    [
      "an unknown field in a threshold",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 0)[0]!.minCont = 100;
      },
      "programs.0.thresholds.0",
    ],
    [
      "an unknown field in a programme",
      (c: ReturnType<typeof defaults>) => {
        c.programs[0]!.denominatr = { month: "same" };
      },
      "programs.0",
    ],
    [
      "an unknown denominator month",
      (c: ReturnType<typeof defaults>) => {
        c.programs[0]!.denominator = { month: "next" };
      },
      "programs.0.denominator.month",
    ],
    [
      "an unknown level",
      (c: ReturnType<typeof defaults>) => {
        thresholdsOf(c, 0)[0]!.level = "watch";
      },
      "programs.0.thresholds.0.level",
    ],
    [
      "a bad id",
      (c: ReturnType<typeof defaults>) => {
        c.programs[0]!.id = "Mastercard ECP";
      },
      "programs.0.id",
    ],
    [
      "a duplicate id",
      (c: ReturnType<typeof defaults>) => {
        c.programs[1]!.id = "mastercard-ecp";
      },
      "programs.1.id",
    ],
    [
      "no thresholds",
      (c: ReturnType<typeof defaults>) => {
        c.programs[0]!.thresholds = [];
      },
      "programs.0.thresholds",
    ],
    [
      "a negative alert cost",
      (c: ReturnType<typeof defaults>) => {
        c.alertCost.RDR = -1;
      },
      "alertCost.RDR",
    ],
    [
      "an alert cost finer than a cent",
      (c: ReturnType<typeof defaults>) => {
        c.alertCost.CDRN = 0.125;
      },
      "alertCost.CDRN",
    ],
    [
      "a missing alert cost",
      (c: ReturnType<typeof defaults>) => {
        delete c.alertCost.ETHOCA;
      },
      "alertCost.ETHOCA",
    ],
  ])("rejects %s, naming %s", (_what, breakIt, path) => {
    const config = defaults();
    breakIt(config);
    const message = messageOf(config);
    expect(message).toMatch(/^Invalid monitor configuration: /);
    expect(message).toContain(`${path}: `);
  });

  it("names the unknown field itself", () => {
    const config = defaults();
    config.programs[0]!.denominatr = { month: "same" };
    expect(messageOf(config)).toMatch(/programs\.0: .*denominatr/);
    expect(messageOf({ ...defaults(), currency: "EUR" })).toMatch(/\(root\): .*currency/);
  });

  it("names every problem, not just the first", () => {
    const config = defaults();
    thresholdsOf(config, 0)[0]!.ratio = -1;
    config.programs[1]!.cardBrand = "JCB";
    const message = messageOf(config);
    expect(message).toContain("programs.0.thresholds.0.ratio");
    expect(message).toContain("programs.1.cardBrand");
  });

  it.each([
    ["not an object", "programs"],
    ["no programmes", { programs: [], alertCost: DEFAULT_MONITOR_CONFIG.alertCost }],
    ["no alert costs", { programs: DEFAULT_MONITOR_CONFIG.programs }],
  ])("rejects %s", (_what, json) => {
    expect(() => parseMonitorConfig(json)).toThrow(/^Invalid monitor configuration: /);
  });
});
