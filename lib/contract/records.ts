/**
 * The records of a report answer (SPEC.md §1.2): one optional field per catalog dimension and
 * metric of the operation, in catalog order (the OpenAPI document lists them in that order).
 */
import { z } from "zod";
import { dimensionDescription, dimensionsFor, metricDescription, metricsFor, type Operation } from "./catalog";
import { CalendarDate } from "./scalars";

function recordSchema(op: Operation) {
  const shape: Record<string, z.ZodType> = {};
  for (const d of dimensionsFor(op)) {
    const t = d.type === "date" ? CalendarDate : d.type === "integer" ? z.int() : d.type === "decimal" ? z.number() : z.string();
    shape[d.name] = t.nullable().optional().meta({ description: dimensionDescription(d.name) });
  }
  for (const m of metricsFor(op)) {
    shape[m.name] = (m.type === "int" ? z.int() : z.number()).optional().meta({ description: metricDescription(m.name) });
  }
  return z.object(shape);
}

export const OrdersRecordSchema = recordSchema("orders");
export const CohortRecordSchema = recordSchema("cohort");
export type ReportRecord = Record<string, string | number | null>;
