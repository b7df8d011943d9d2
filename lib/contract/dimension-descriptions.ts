/**
 * What each catalog dimension means (re-exported by ./catalog.ts): for the Metrics page and the OpenAPI
 * document. Apart from ./dimensions.ts, which the report pages' browser code loads to check filters,
 * as no browser picker shows them. Typed by the dimensions' names, so a dimension added
 * without its description does not compile.
 */
import type { DimensionName } from "./dimensions";

export const DIMENSION_DESCRIPTIONS: Readonly<Record<DimensionName, string>> = {
  date: "Event date (order summary) or the customer's initial date (cohort).",
  campaign_id: "CRM campaign (in cohorts: of the initial order).",
  product_id: "Product (in cohorts: of the initial order).",
  gateway_id: "Gateway (merchant account, MID) that processed the attempt.",
  bin: "First 6 digits of the card number.",
  affid: "Affiliate id (in cohorts: of the initial order).",
  sub_affid: "Sub-affiliate id (in cohorts: of the initial order).",
  sales_type: "Initials, Rebills or Straight Sales.",
  refund_type: "Refund Alert or Refund CS; only on refund metrics, null elsewhere.",
  billing_cycle: "0 for the initial or straight sale, 1, 2, … for rebills.",
  attempt_col: "Attempt number within an order: 1 for the first try, 2 and up for retries.",
  price_point: "List price of the order (in cohorts: of the initial order).",
  alert_type: "ETHOCA, CDRN or RDR; only on alert metrics, null elsewhere.",
  product_name: "Product name.",
  product_group: "Product group.",
  campaign_name: "Campaign name.",
  campaign_type: "Campaign type, e.g. Trial, Straight Sale, Continuity.",
  mcc: "Merchant category code of the gateway, 4 digits.",
  acquirer: "Acquiring bank of the gateway.",
  gateway_alias: "Human name of the gateway.",
  bank: "Issuing bank of the BIN.",
  card_brand: "VISA, MASTERCARD, AMEX or DISCOVER.",
  card_type: "CREDIT, DEBIT or PREPAID.",
};

/** A dimension's description by its name (undefined for a name the catalog does not have). */
export function dimensionDescription(name: string): string | undefined {
  return Object.hasOwn(DIMENSION_DESCRIPTIONS, name) ? DIMENSION_DESCRIPTIONS[name as DimensionName] : undefined;
}
