/**
 * The import format (docs/import-format.md): the files, their columns and each column's kind, and
 * the references between tables. The parsers, checks and load are all driven by these specs, so the
 * format reads in one place.
 */
import { ALERT_TYPES, CARD_BRANDS, CARD_TYPES, REFUND_TYPES, SALES_TYPES } from "../../../lib/contract/catalog";

export type ImportTable =
  | "gateways"
  | "campaigns"
  | "products"
  | "bins"
  | "customers"
  | "attempts"
  | "refunds"
  | "chargebacks"
  | "alerts";

export type Kind =
  | "id" // INTEGER id, 1 … 2^31-1
  | "bigid" // BIGINT id, 1 … 2^53-1
  | "int" // INTEGER with min
  | "money" // decimal currency units, ≤ 2 decimals → integer cents
  | "date"
  | "timestamp"
  | "bool"
  | "enum"
  | "text" // free text (required: non-blank)
  | "bin" // 6 digits
  | "mcc"; // 4 digits

export interface ColumnSpec {
  /** Header name in the CSV. */
  readonly name: string;
  /** Column of the table. */
  readonly db: string;
  readonly kind: Kind;
  readonly required: boolean;
  readonly values?: readonly string[];
  readonly min?: number;
}

interface RefSpec {
  readonly column: string; // db column of this table
  readonly table: ImportTable;
}

export interface TableSpec {
  readonly table: ImportTable;
  readonly file: string;
  /** The id column (db name = CSV name). */
  readonly key: string;
  readonly columns: readonly ColumnSpec[];
  readonly refs: readonly RefSpec[];
}

const col = (name: string, kind: Kind, required = true, extra: Partial<ColumnSpec> = {}): ColumnSpec => ({
  name,
  db: kind === "money" ? `${name}_cents` : name,
  kind,
  required,
  ...extra,
});

/** In load order: referenced tables first. */
export const TABLES: readonly TableSpec[] = [
  {
    table: "gateways",
    file: "gateways.csv",
    key: "gateway_id",
    columns: [col("gateway_id", "id"), col("gateway_alias", "text"), col("acquirer", "text"), col("mcc", "mcc")],
    refs: [],
  },
  {
    table: "campaigns",
    file: "campaigns.csv",
    key: "campaign_id",
    columns: [col("campaign_id", "id"), col("campaign_name", "text"), col("campaign_type", "text"), col("cpa", "money")],
    refs: [],
  },
  {
    table: "products",
    file: "products.csv",
    key: "product_id",
    columns: [col("product_id", "id"), col("product_name", "text"), col("product_group", "text")],
    refs: [],
  },
  {
    table: "bins",
    file: "bins.csv",
    key: "bin",
    columns: [
      col("bin", "bin"),
      col("bank", "text"),
      col("card_brand", "enum", true, { values: CARD_BRANDS }),
      col("card_type", "enum", true, { values: CARD_TYPES }),
    ],
    refs: [],
  },
  {
    table: "customers",
    file: "customers.csv",
    key: "customer_id",
    columns: [
      col("customer_id", "bigid"),
      col("initial_date", "date"),
      col("campaign_id", "id"),
      col("product_id", "id"),
      col("affid", "text", false),
      col("sub_affid", "text", false),
      col("price_point", "money"),
    ],
    refs: [
      { column: "campaign_id", table: "campaigns" },
      { column: "product_id", table: "products" },
    ],
  },
  {
    table: "attempts",
    file: "attempts.csv",
    key: "attempt_id",
    columns: [
      col("attempt_id", "bigid"),
      col("order_id", "bigid"),
      col("customer_id", "bigid"),
      col("attempted_at", "timestamp"),
      col("attempt_date", "date", false), // derived from attempted_at when absent or empty
      col("attempt_no", "int", true, { min: 1 }),
      col("is_cascade", "bool"),
      col("approved", "bool"),
      col("amount", "money"),
      col("billing_cycle", "int", true, { min: 0 }),
      col("sales_type", "enum", true, { values: SALES_TYPES }),
      col("campaign_id", "id"),
      col("product_id", "id"),
      col("gateway_id", "id"),
      col("bin", "bin"),
      col("affid", "text", false),
      col("sub_affid", "text", false),
      col("price_point", "money"),
      col("initial_date", "date"),
    ],
    refs: [
      { column: "customer_id", table: "customers" },
      { column: "campaign_id", table: "campaigns" },
      { column: "product_id", table: "products" },
      { column: "gateway_id", table: "gateways" },
      { column: "bin", table: "bins" },
    ],
  },
  {
    table: "refunds",
    file: "refunds.csv",
    key: "refund_id",
    columns: [
      col("refund_id", "bigid"),
      col("attempt_id", "bigid"),
      col("refund_date", "date"),
      col("amount", "money"),
      col("refund_type", "enum", true, { values: REFUND_TYPES }),
    ],
    refs: [{ column: "attempt_id", table: "attempts" }],
  },
  {
    table: "chargebacks",
    file: "chargebacks.csv",
    key: "chargeback_id",
    columns: [col("chargeback_id", "bigid"), col("attempt_id", "bigid"), col("cb_date", "date"), col("amount", "money")],
    refs: [{ column: "attempt_id", table: "attempts" }],
  },
  {
    table: "alerts",
    file: "alerts.csv",
    key: "alert_id",
    columns: [
      col("alert_id", "bigid"),
      col("attempt_id", "bigid"),
      col("alert_date", "date"),
      col("amount", "money"),
      col("alert_type", "enum", true, { values: ALERT_TYPES }),
    ],
    refs: [{ column: "attempt_id", table: "attempts" }],
  },
];

export const SPEC_BY_FILE = new Map(TABLES.map((t) => [t.file, t]));
const SPEC_BY_TABLE = new Map(TABLES.map((t) => [t.table, t]));

export function specOf(table: ImportTable): TableSpec {
  const s = SPEC_BY_TABLE.get(table);
  if (!s) throw new Error(`unknown table ${table}`);
  return s;
}

/** CSV name of a table column (`amount_cents` → `amount`). */
export function csvName(spec: TableSpec, db: string): string {
  return spec.columns.find((c) => c.db === db)?.name ?? db;
}
