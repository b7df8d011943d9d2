import { describe, expect, it } from "vitest";
import {
  BinRoutingRequestSchema,
  CohortRequestSchema,
  DIMENSIONS,
  METRICS,
  OPERATIONS,
  OrdersRequestSchema,
  dimensionsFor,
  issuesToDetails,
  metricsFor,
  parseReportResponse,
  reportRequestSchemaFor,
  type DimensionDef,
  type Operation,
} from "./index";

const base = { start_date: "2025-07-01", end_date: "2025-07-31" };

function problems(op: Operation, body: unknown) {
  const r = reportRequestSchemaFor(op).safeParse(body);
  return r.success ? [] : issuesToDetails(r.error);
}
function paths(op: Operation, body: unknown) {
  return problems(op, body).map((d) => d.path);
}

/** A valid filter value for a dimension, by its catalog type. */
function sampleValue(d: DimensionDef): string | number {
  if (d.values?.[0]) return d.values[0];
  switch (d.type) {
    case "date": return "2025-07-02";
    case "integer": return 7;
    case "decimal": return 39.95;
    case "string": return "abc";
  }
}
/** A value of the wrong type for a dimension. */
function wrongValue(d: DimensionDef): unknown {
  return d.type === "string" || d.type === "date" ? 12 : String(sampleValue(d));
}

describe.each(OPERATIONS)("report request (%s)", (op) => {
  it("accepts the minimal request", () => {
    expect(problems(op, base)).toEqual([]);
  });

  it("requires both dates", () => {
    expect(paths(op, {})).toEqual(expect.arrayContaining(["start_date", "end_date"]));
  });

  it("accepts a 100-day range and rejects 101 days, naming end_date", () => {
    expect(problems(op, { start_date: "2025-01-01", end_date: "2025-04-11" })).toEqual([]);
    const d = problems(op, { start_date: "2025-01-01", end_date: "2025-04-12" });
    expect(d).toHaveLength(1);
    expect(d[0]?.path).toBe("end_date");
    expect(d[0]?.message).toMatch(/at most 100 days after start_date/);
  });

  it("accepts a one-day range and rejects end before start", () => {
    expect(problems(op, { start_date: "2025-07-01", end_date: "2025-07-01" })).toEqual([]);
    expect(paths(op, { start_date: "2025-07-02", end_date: "2025-07-01" })).toEqual(["end_date"]);
  });

  it("accepts 2024-02-29 and rejects 2025-02-29 and other impossible or malformed dates", () => {
    expect(problems(op, { start_date: "2024-02-29", end_date: "2024-03-01" })).toEqual([]);
    for (const bad of ["2025-02-29", "2025-02-30", "2025-13-01", "2025-00-10", "2025-7-1", "20250701", "2025-07-01T00:00:00Z", ""]) {
      expect(paths(op, { start_date: bad, end_date: "2025-07-01" })).toContain("start_date");
    }
  });

  it("rejects unknown top-level fields by name", () => {
    const d = problems(op, { ...base, "group-by": ["date"], extra: 1 });
    expect(d.map((x) => x.path).sort()).toEqual(["extra", "group-by"]);
    expect(d[0]?.message).toMatch(/unknown field/);
  });

  it("bounds limit to 1..1000 and offset to >= 0 integers", () => {
    expect(problems(op, { ...base, limit: 1000, offset: 0 })).toEqual([]);
    expect(problems(op, { ...base, limit: 1 })).toEqual([]);
    expect(paths(op, { ...base, limit: 1001 })).toEqual(["limit"]);
    expect(paths(op, { ...base, limit: 0 })).toEqual(["limit"]);
    expect(paths(op, { ...base, limit: 10.5 })).toEqual(["limit"]);
    expect(paths(op, { ...base, limit: "10" })).toEqual(["limit"]);
    expect(paths(op, { ...base, offset: -1 })).toEqual(["offset"]);
    expect(paths(op, { ...base, offset: 1.5 })).toEqual(["offset"]);
  });

  it("accepts 6 group_by dimensions, rejects 7, duplicates and unknown names", () => {
    const names = dimensionsFor(op).map((d) => d.name);
    expect(problems(op, { ...base, group_by: names.slice(0, 6) })).toEqual([]);
    expect(paths(op, { ...base, group_by: names.slice(0, 7) })).toEqual(["group_by"]);
    expect(paths(op, { ...base, group_by: ["date", "date"] })).toEqual(["group_by[1]"]);
    expect(paths(op, { ...base, group_by: ["date", "nope"] })).toEqual(["group_by[1]"]);
    expect(paths(op, { ...base, group_by: "date" })).toEqual(["group_by"]);
  });

  it("rejects duplicate, unknown and empty metric lists", () => {
    const first = metricsFor(op)[0]!.name;
    expect(paths(op, { ...base, metrics: [first, first] })).toEqual(["metrics[1]"]);
    expect(paths(op, { ...base, metrics: ["bogus"] })).toEqual(["metrics[0]"]);
    expect(paths(op, { ...base, metrics: [] })).toEqual(["metrics"]);
  });

  it("rejects filters on unknown dimensions by name", () => {
    expect(paths(op, { ...base, filters: { nope: 1 } })).toEqual(["filters.nope"]);
  });

  it("reports every problem at once", () => {
    expect(paths(op, { start_date: "x", end_date: "2025-02-30", limit: 0, extra: true }).sort()).toEqual(
      ["end_date", "extra", "limit", "start_date"],
    );
  });

  // Loops over the catalog so a dimension added later is covered without new test code.
  describe.each(dimensionsFor(op).map((d) => [d.name, d] as const))("dimension %s", (name, d) => {
    it("is accepted in group_by", () => {
      expect(problems(op, { ...base, group_by: [name] })).toEqual([]);
    });
    it("filters by a value of its type, an array of them, or null", () => {
      expect(problems(op, { ...base, filters: { [name]: sampleValue(d) } })).toEqual([]);
      expect(problems(op, { ...base, filters: { [name]: [sampleValue(d), null] } })).toEqual([]);
    });
    it("rejects a filter value of another type, naming the filter", () => {
      const d1 = problems(op, { ...base, filters: { [name]: wrongValue(d) } });
      expect(d1.map((x) => x.path)).toEqual([`filters.${name}`]);
      expect(d1[0]?.message).toContain(name);
    });
    it("accepts 100 filter values and rejects 101 or none", () => {
      const many = Array.from({ length: 100 }, () => sampleValue(d));
      expect(problems(op, { ...base, filters: { [name]: many } })).toEqual([]);
      expect(paths(op, { ...base, filters: { [name]: [...many, sampleValue(d)] } })).toEqual([`filters.${name}`]);
      expect(paths(op, { ...base, filters: { [name]: [] } })).toEqual([`filters.${name}`]);
    });
    if (d.values) {
      it("matches enumerated values case-insensitively and canonicalizes them", () => {
        const canonical = d.values![d.values!.length - 1]!;
        const r = reportRequestSchemaFor(op).parse({ ...base, filters: { [name]: [canonical.toLowerCase(), canonical.toUpperCase()] } });
        expect(r.filters?.[name as keyof typeof r.filters]).toEqual([canonical, canonical]);
        expect(paths(op, { ...base, filters: { [name]: "not-a-value" } })).toEqual([`filters.${name}`]);
      });
    }
  });

  describe.each(metricsFor(op).map((m) => [m.name] as const))("metric %s", (name) => {
    it("is accepted", () => {
      expect(problems(op, { ...base, metrics: [name] })).toEqual([]);
    });
  });
});

describe("operation-specific catalog entries", () => {
  it("offers each metric and dimension to at least one operation, and names are unique", () => {
    for (const list of [DIMENSIONS, METRICS]) {
      const names = list.map((x) => x.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });
  it("rejects a cohort-only dimension or metric on the order summary and vice versa", () => {
    for (const d of DIMENSIONS) {
      const ops = d.operations as readonly Operation[];
      for (const op of OPERATIONS) {
        if (!ops.includes(op)) expect(paths(op, { ...base, group_by: [d.name] })).toEqual(["group_by[0]"]);
      }
    }
    for (const m of METRICS) {
      const ops = m.operations as readonly Operation[];
      for (const op of OPERATIONS) {
        if (!ops.includes(op)) expect(paths(op, { ...base, metrics: [m.name] })).toEqual(["metrics[0]"]);
      }
    }
  });
  it("keeps the spec's example filter types: product_id 903 passes, \"903\" fails", () => {
    expect(OrdersRequestSchema.safeParse({ ...base, filters: { product_id: 903 } }).success).toBe(true);
    expect(OrdersRequestSchema.safeParse({ ...base, filters: { product_id: "903" } }).success).toBe(false);
    expect(CohortRequestSchema.safeParse({ ...base, filters: { attempt_col: [1, 2] } }).success).toBe(true);
  });
});

describe("BIN routing request", () => {
  const pathsOf = (body: unknown) => {
    const r = BinRoutingRequestSchema.safeParse(body);
    return r.success ? [] : issuesToDetails(r.error).map((d) => d.path);
  };
  it("accepts 6, 7 and 8 digits with only bin", () => {
    for (const bin of ["414720", "4147201", "41472012"]) expect(pathsOf({ bin })).toEqual([]);
  });
  it("rejects 5 digits, 9 digits, letters, empty, and a number", () => {
    for (const bin of ["41472", "414720123", "41472a", "", 414720, " 414720"]) expect(pathsOf({ bin })).toEqual(["bin"]);
    expect(pathsOf({})).toEqual(["bin"]);
  });
  it("canonicalizes sales_type case-insensitively and rejects others", () => {
    expect(BinRoutingRequestSchema.parse({ bin: "414720", sales_type: "rebills" }).sales_type).toBe("REBILLS");
    expect(pathsOf({ bin: "414720", sales_type: "STRAIGHT" })).toEqual(["sales_type"]);
  });
  it("bounds customer_id and product_id to 128 characters and checks the e-mail", () => {
    expect(pathsOf({ bin: "414720", customer_id: "x".repeat(128), product_id: "p".repeat(128), email: "a@b.co" })).toEqual([]);
    expect(pathsOf({ bin: "414720", customer_id: "x".repeat(129) })).toEqual(["customer_id"]);
    expect(pathsOf({ bin: "414720", product_id: "x".repeat(129) })).toEqual(["product_id"]);
    expect(pathsOf({ bin: "414720", email: "not-an-email" })).toEqual(["email"]);
    expect(pathsOf({ bin: "414720", extra: 1 })).toEqual(["extra"]);
  });
});

describe("parseReportResponse (the dashboard's check of upstream answers)", () => {
  const ok = {
    success: true,
    code: 200,
    message: "Order summary data retrieved successfully",
    data: [{ date: "2025-07-01", product_id: 903, revenue: 15248.75, refund_type: null }],
    pagination: { total: 1, limit: 1000, offset: 0, has_more: false },
    timestamp: "2025-07-31T12:00:00.000Z",
  };
  it("accepts the contract's envelope with flat records", () => {
    expect(parseReportResponse(ok)?.data[0]?.revenue).toBe(15248.75);
  });
  it("rejects nested values, arrays as records, and a broken envelope", () => {
    expect(parseReportResponse({ ...ok, data: [{ x: { y: 1 } }] })).toBeNull();
    expect(parseReportResponse({ ...ok, data: [[1, 2]] })).toBeNull();
    expect(parseReportResponse({ ...ok, data: [{ x: [1] }] })).toBeNull();
    expect(parseReportResponse({ ...ok, pagination: undefined })).toBeNull();
    expect(parseReportResponse({ ...ok, success: false })).toBeNull();
  });
});
