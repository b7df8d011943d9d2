/**
 * The catalog's dimensions (SPEC.md §2.2): part of the one catalog (./catalog.ts re-exports all of
 * it), in a module of its own so browser code that checks filters needs no metric. What
 * each dimension means, for people and the OpenAPI document, is ./dimension-descriptions.ts: the
 * browser's pickers show labels only.
 */

import type { Operation } from "./operations";

export type DimensionType = "date" | "integer" | "string" | "decimal";

export interface DimensionDef {
  readonly name: string;
  readonly type: DimensionType;
  readonly label: string;
  /** Canonical spellings of an enumerated string dimension; filters match them case-insensitively. */
  readonly values?: readonly string[];
  /** Operations that offer this dimension. */
  readonly operations: readonly Operation[];
  /** Display group in pickers. */
  readonly group: "Identity and time" | "Sale classification" | "Names and types" | "Card and processing";
}

/** Both operations: what most dimensions, metrics and KPIs are offered by. */
export const BOTH = ["orders", "cohort"] as const satisfies readonly Operation[];

export const SALES_TYPES = ["Initials", "Rebills", "Straight Sales"] as const;
export const REFUND_TYPES = ["Refund Alert", "Refund CS"] as const;
export const ALERT_TYPES = ["ETHOCA", "CDRN", "RDR"] as const;
export const CARD_BRANDS = ["VISA", "MASTERCARD", "AMEX", "DISCOVER"] as const;
export const CARD_TYPES = ["CREDIT", "DEBIT", "PREPAID"] as const;

export const DIMENSIONS = [
  { name: "date", type: "date", label: "Date", group: "Identity and time", operations: BOTH },
  { name: "campaign_id", type: "integer", label: "Campaign ID", group: "Identity and time", operations: BOTH },
  { name: "product_id", type: "integer", label: "Product ID", group: "Identity and time", operations: BOTH },
  { name: "gateway_id", type: "integer", label: "Gateway ID", group: "Identity and time", operations: BOTH },
  { name: "bin", type: "string", label: "BIN", group: "Identity and time", operations: BOTH },
  { name: "affid", type: "string", label: "Affiliate", group: "Identity and time", operations: BOTH },
  { name: "sub_affid", type: "string", label: "Sub-affiliate", group: "Identity and time", operations: BOTH },
  { name: "sales_type", type: "string", label: "Sales type", group: "Sale classification", operations: BOTH, values: SALES_TYPES },
  { name: "refund_type", type: "string", label: "Refund type", group: "Sale classification", operations: BOTH, values: REFUND_TYPES },
  { name: "billing_cycle", type: "integer", label: "Billing cycle", group: "Sale classification", operations: BOTH },
  { name: "attempt_col", type: "integer", label: "Attempt number", group: "Sale classification", operations: ["cohort"] },
  { name: "price_point", type: "decimal", label: "Price point", group: "Sale classification", operations: BOTH },
  { name: "alert_type", type: "string", label: "Alert type", group: "Sale classification", operations: BOTH, values: ALERT_TYPES },
  { name: "product_name", type: "string", label: "Product", group: "Names and types", operations: BOTH },
  { name: "product_group", type: "string", label: "Product group", group: "Names and types", operations: BOTH },
  { name: "campaign_name", type: "string", label: "Campaign", group: "Names and types", operations: BOTH },
  { name: "campaign_type", type: "string", label: "Campaign type", group: "Names and types", operations: BOTH },
  { name: "mcc", type: "string", label: "MCC", group: "Card and processing", operations: BOTH },
  { name: "acquirer", type: "string", label: "Acquirer", group: "Card and processing", operations: BOTH },
  { name: "gateway_alias", type: "string", label: "Gateway", group: "Card and processing", operations: BOTH },
  { name: "bank", type: "string", label: "Issuing bank", group: "Card and processing", operations: BOTH },
  { name: "card_brand", type: "string", label: "Card brand", group: "Card and processing", operations: BOTH, values: CARD_BRANDS },
  { name: "card_type", type: "string", label: "Card type", group: "Card and processing", operations: BOTH, values: CARD_TYPES },
] as const satisfies readonly DimensionDef[];

export type DimensionName = (typeof DIMENSIONS)[number]["name"];

const dimensionByName = new Map<string, DimensionDef>(DIMENSIONS.map((d) => [d.name, d]));

export function getDimension(name: string): DimensionDef | undefined {
  return dimensionByName.get(name);
}

/** Dimension names offered by an operation, in catalog order (which is also the default sort order). */
export function dimensionsFor(op: Operation): readonly DimensionDef[] {
  return DIMENSIONS.filter((d) => (d.operations as readonly Operation[]).includes(op));
}

/** Dimensions whose values come from a bounded set the data itself holds (not enumerations, not dates): the filter editor suggests values seen in recent answers. */
export const SUGGESTED_DIMENSIONS: readonly string[] = DIMENSIONS.filter((d) => d.type !== "date" && !("values" in d && d.values)).map((d) => d.name);
