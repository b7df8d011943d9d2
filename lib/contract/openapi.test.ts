import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { metricsFor, dimensionsFor } from "./catalog";
import { buildOpenApiDocument, renderOpenApiDocument } from "./openapi";

describe("OpenAPI document", () => {
  it("is committed and up to date (run `npm run openapi` after changing lib/contract)", () => {
    const committed = readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8");
    expect(committed).toBe(renderOpenApiDocument());
  });

  it("describes every catalog dimension and metric in the request and record schemas", () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, { properties: Record<string, { properties?: Record<string, unknown>; items?: { properties?: Record<string, unknown> } }> }> } };
    const s = doc.components.schemas;
    for (const [op, req, res] of [["orders", "OrdersRequest", "OrdersResponse"], ["cohort", "CohortRequest", "CohortResponse"]] as const) {
      const filters = Object.keys(s[req]!.properties.filters!.properties!);
      expect(filters).toEqual(dimensionsFor(op).map((d) => d.name));
      const record = Object.keys(s[res]!.properties.data!.items!.properties!);
      expect(record).toEqual([...dimensionsFor(op).map((d) => d.name), ...metricsFor(op).map((m) => m.name)]);
    }
  });
});
