/**
 * BIN routing (SPEC.md §4): the routing request and its answer, which is flat rather than in the
 * success envelope: `success`, the gateway and `session_info` sit at the top level, with no `code`,
 * `message` or `data`.
 */
import { z } from "zod";
import { ROUTING_SALES_TYPES, SELECTION_METHODS } from "./routing-values";
import { Timestamp, caseInsensitiveEnum } from "./scalars";

export { ROUTING_SALES_TYPES, SELECTION_METHODS, type SelectionMethod } from "./routing-values";

export const BinRoutingRequestSchema = z.strictObject({
  bin: z.string().regex(/^\d{6,8}$/, { error: "bin must be a string of 6 to 8 digits" }),
  sales_type: caseInsensitiveEnum(ROUTING_SALES_TYPES).optional(),
  customer_id: z.string().max(128).optional(),
  product_id: z.string().max(128).optional(),
  email: z.email({ error: "email must be an e-mail address" }).max(320).optional(),
});
export type BinRoutingRequest = z.output<typeof BinRoutingRequestSchema>;

export const BinInfoSchema = z.object({
  bin: z.string(),
  bank: z.string().nullable(),
  card_brand: z.string().nullable(),
  card_type: z.string().nullable(),
});

export const BinRoutingResponseSchema = z.object({
  success: z.literal(true),
  gateway_id: z.string(),
  group_id: z.int(),
  group_name: z.string(),
  is_fallback: z.boolean(),
  timestamp: Timestamp,
  session_info: z.object({
    selection_method: z.enum(SELECTION_METHODS),
    rule_name: z.string(),
    current_index: z.int().min(0),
    total_calls: z.int().min(1),
    total_mids: z.int().min(1),
    next_gateway_id: z.string(),
  }),
  bin_info: BinInfoSchema.nullable().optional().meta({ description: "Extension: issuer of the BIN, null when unknown" }),
});
export type BinRoutingResponse = z.infer<typeof BinRoutingResponseSchema>;
