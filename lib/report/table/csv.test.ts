import { describe, expect, it } from "vitest";
import { escapeCsvCell, guardFormula, tableToCsv, tableToDataCsv, toCsv } from "./csv";
import { buildTable } from "./table";
import { sortRows } from "./sort";

describe("RFC 4180 fields", () => {
  it("quotes fields with commas, quotes and line breaks, doubling quotes", () => {
    expect(escapeCsvCell("plain")).toBe("plain");
    expect(escapeCsvCell("a,b")).toBe('"a,b"');
    expect(escapeCsvCell('say "hi"')).toBe('"say ""hi"""');
    expect(escapeCsvCell("two\nlines")).toBe('"two\nlines"');
    expect(escapeCsvCell("cr\rhere")).toBe('"cr\rhere"');
    expect(escapeCsvCell(null)).toBe("");
    expect(escapeCsvCell(undefined)).toBe("");
  });

  it("ends every record with CRLF", () => {
    expect(toCsv([["a", 1], ["b", 2.5]])).toBe("a,1\r\nb,2.5\r\n");
  });
});

describe("formula injection", () => {
  it.each(["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "=HYPERLINK(\"http://evil\")"])("guards text %j", (t) => {
    expect(guardFormula(t).startsWith("'")).toBe(true);
  });
  it("leaves ordinary text and numbers alone", () => {
    expect(guardFormula("VISA")).toBe("VISA");
    expect(escapeCsvCell(-12.5)).toBe("-12.5");
    expect(escapeCsvCell("-12.5")).toBe("'-12.5"); // text that looks like a number is still text
  });
  it("guards before quoting", () => {
    expect(escapeCsvCell('=A1,"x"')).toBe(`"'=A1,""x"""`);
  });
});

describe("the table export", () => {
  const records = [
    { affid: "=cmd|' /C calc'!A0", approvals: 5, attempts: 10, revenue: 100, refund_amount: 0, cb_amount: 0 },
    { affid: "aff, 2", approvals: 0, attempts: 4, revenue: 0, refund_amount: 0, cb_amount: 12.5 },
  ];
  const model = buildTable({ op: "orders", groupBy: ["affid"], measures: ["approvals", "revenue", "approval_rate", "net_revenue"] }, records);

  it("writes meta lines, the shown columns, the rows in the shown order and the totals", () => {
    const rows = sortRows(model, { key: "approval_rate", dir: "asc" });
    const csv = tableToCsv(model, rows, {
      lines: [
        ["Range", "2025-07-01 to 2025-07-30 (Last 30 days)"],
        ["Timezone", "UTC"],
        ["Filters", "Affiliate: =x"],
      ],
    });
    expect(csv.split("\r\n")).toEqual([
      "Range,2025-07-01 to 2025-07-30 (Last 30 days)",
      "Timezone,UTC",
      "Filters,Affiliate: =x",
      "",
      // Net revenue takes away its sales' chargebacks and refunds, which can still be arriving.
      "Affiliate,Approvals,Revenue (USD),Approval rate (%),Net revenue (USD),Maturing",
      '"aff, 2",0,0,0,-12.5,',
      `'=cmd|' /C calc'!A0,5,100,50,100,`,
      "Totals,5,100,35.71,87.5,",
      "",
    ]);
  });

  it("offers the data alone: the header row first, the rows as shown, no notes and no totals", () => {
    const rows = sortRows(model, { key: "approval_rate", dir: "asc" });
    expect(tableToDataCsv(model, rows).split("\r\n")).toEqual([
      "Affiliate,Approvals,Revenue (USD),Approval rate (%),Net revenue (USD),Maturing",
      '"aff, 2",0,0,0,-12.5,',
      `'=cmd|' /C calc'!A0,5,100,50,100,`,
      "",
    ]);
  });
});
