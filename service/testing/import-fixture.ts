import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A small, valid import directory (docs/import-format.md): every file, exact cents, values in
 * mixed spellings and columns in another order, for the importer's and the CLI's tests.
 */
export const VALID_IMPORT: Record<string, string> = {
  "gateways.csv": [
    "gateway_id,gateway_alias,acquirer,mcc",
    "1,Main MID,Chase,5968",
    `2,"Backup, ""B"" MID",Wells Fargo,5968`,
  ].join("\n"),
  "campaigns.csv": [
    // columns in another order than the table's
    "cpa,campaign_id,campaign_name,campaign_type",
    "35.00,10,Trial A,Trial",
    "0,11,Straight,Straight Sale",
  ].join("\n"),
  "products.csv": ["product_id,product_name,product_group", "903,Serum,Skin"].join("\n"),
  "bins.csv": [
    "bin,bank,card_brand,card_type",
    "414720,JPMORGAN CHASE BANK N.A.,visa,Debit",
    "545454,CITIBANK,MASTERCARD,CREDIT",
    "012345,SMALL BANK,Amex,prepaid",
  ].join("\n"),
  "customers.csv": [
    "customer_id,initial_date,campaign_id,product_id,affid,sub_affid,price_point",
    "100,2025-07-01,10,903,aff1,,4.95",
    "101,2025-07-02,11,903,,,19.99",
  ].join("\n"),
  "attempts.csv": [
    "attempt_id,order_id,customer_id,attempted_at,attempt_no,is_cascade,approved,amount,billing_cycle,sales_type,campaign_id,product_id,gateway_id,bin,affid,sub_affid,price_point,initial_date",
    "1,500,100,2025-07-01T13:45:00Z,1,false,true,19.99,0,initials,10,903,1,414720,aff1,,4.95,2025-07-01",
    "2,501,101,2025-07-02 09:00:00,1,0,0,0.01,0,Straight Sales,11,903,2,545454,,,19.99,2025-07-02",
    "3,501,101,2025-07-02 09:00:05,2,1,1,0.01,0,STRAIGHT SALES,11,903,1,545454,,,19.99,2025-07-02",
    "4,502,100,2025-07-31T10:00:00.250Z,1,FALSE,TRUE,89.99,1,Rebills,10,903,1,414720,aff1,,4.95,2025-07-01",
  ].join("\r\n"),
  "refunds.csv": ["refund_id,attempt_id,refund_date,amount,refund_type", "1,4,2025-08-05,89.99,refund cs"].join("\n"),
  "chargebacks.csv": ["chargeback_id,attempt_id,cb_date,amount", "1,1,2025-08-20,19.99"].join("\n"),
  "alerts.csv": ["alert_id,attempt_id,alert_date,amount,alert_type", "1,1,2025-08-10,19.99,ethoca"].join("\n") + "\n",
};

/** Writes `files` (name → CSV text) into a new directory `dir`, and returns it. */
export function writeCsvDir(dir: string, files: Record<string, string>): string {
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
