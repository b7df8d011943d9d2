/**
 * Dimension values seen in answers the gateway has fetched, kept as the cache stores them, so the
 * filter editor can suggest real values (gateways, banks, affiliates, campaigns, products…) without
 * an upstream call of its own. Bounded per dimension; the most recently seen values are kept.
 */
import type { ReportRecord } from "@/lib/contract";
import { compareValues } from "@/lib/contract/order";
import { SUGGESTED_DIMENSIONS } from "@/lib/contract/dimensions";

export interface SeenValue {
  value: string | number;
  /** The human name that came with an id in the same record (a gateway's alias), if any. */
  label: string | null;
}


/** An id's name, when the same record carries it. */
const NAME_OF: Readonly<Record<string, string>> = { gateway_id: "gateway_alias", campaign_id: "campaign_name", product_id: "product_name" };

export class SeenValues {
  private readonly byDimension = new Map<string, Map<string, SeenValue>>();
  /** Answers that held each dimension: "not seen in the last N reports". */
  private readonly answers = new Map<string, number>();
  /** Dimensions some of whose values were not kept (a value dropped, or records not read). */
  private readonly partial = new Set<string>();

  constructor(
    private readonly perDimension = 500,
    /** Records read per answer: enough to see every value of a bounded dimension, cheap on big answers. */
    private readonly recordsPerAnswer = 50_000,
  ) {}

  add(records: readonly ReportRecord[]): void {
    const n = Math.min(records.length, this.recordsPerAnswer);
    for (const dim of SUGGESTED_DIMENSIONS) {
      if (n === 0 || !(dim in records[0]!)) continue; // an answer holds a dimension in every record or none
      let seen = this.byDimension.get(dim);
      if (!seen) this.byDimension.set(dim, (seen = new Map()));
      this.answers.set(dim, (this.answers.get(dim) ?? 0) + 1);
      if (records.length > n) this.partial.add(dim);
      const nameKey = NAME_OF[dim];
      for (let i = 0; i < n; i++) {
        const r = records[i]!;
        const v = r[dim];
        if (v === null || v === undefined) continue;
        const key = String(v);
        const name = nameKey ? r[nameKey] : undefined;
        const label = typeof name === "string" ? name : (seen.get(key)?.label ?? null);
        seen.delete(key);
        seen.set(key, { value: v, label });
        if (seen.size > this.perDimension) {
          seen.delete(seen.keys().next().value!);
          this.partial.add(dim);
        }
      }
    }
  }

  /** The values seen for a dimension, in the contract's value order. */
  values(dimension: string): SeenValue[] {
    return [...(this.byDimension.get(dimension)?.values() ?? [])].sort((a, b) => compareValues(a.value, b.value));
  }

  /**
   * How many answers held the dimension, and whether every value they held is kept: only then is a
   * value missing from values() one those answers never had.
   */
  coverage(dimension: string): { reports: number; complete: boolean } {
    return { reports: this.answers.get(dimension) ?? 0, complete: !this.partial.has(dimension) };
  }
}
