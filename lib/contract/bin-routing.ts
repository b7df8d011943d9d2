/**
 * BIN routing (SPEC.md §4): the routing request and its answer, which is flat rather than in the
 * success envelope: `success`, the gateway and `session_info` sit at the top level, with no `code`,
 * `message` or `data`.
 */
import { z } from "zod";
import { ROUTING_SALES_TYPES, SELECTION_METHODS } from "./routing-values";
import { RoutingConfigFileSchema } from "./routing-config";
import { Timestamp, caseInsensitiveEnum } from "./scalars";

export type { SelectionMethod } from "./routing-values";
export { RoutingConfigFileSchema } from "./routing-config";

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

// ---------------------------------------------------------------------------------------------
// Live configuration (extension endpoints, docs/routing.md "Live configuration"). The configuration
// itself travels in the `routing load` file format (./routing-config.ts).

export const ROUTING_CONFIG_PATH = "/api/bin-routing/config";
export const ROUTING_CONFIG_VERSIONS_PATH = "/api/bin-routing/config/versions";
export const ROUTING_CONFIG_RESTORE_PATH = "/api/bin-routing/config/restore";
export const ROUTING_CONFIG_VALIDATE_PATH = "/api/bin-routing/config/validate";
/** The client scope that may change the configuration (create-client --scope routing-admin). */
export const ROUTING_ADMIN_SCOPE = "routing-admin";

/** Who changes the configuration and why, sent beside the configuration (or the version to restore). */
export const RoutingChangeMetaSchema = z.strictObject({
  reason: z.string().trim().min(1, { error: "reason must not be empty" }).max(1000),
  author: z.string().trim().min(1, { error: "author must not be empty" }).max(200),
  expected_version: z.int({ error: "expected_version must be an integer" }).min(0).optional().meta({ description: "Applied only when this is the live version (409 otherwise)" }),
});
export const ROUTING_CHANGE_META_FIELDS = ["reason", "author", "expected_version"] as const;

/** POST /api/bin-routing/config: the configuration and, beside it, who changes it and why. */
export const RoutingChangeRequestSchema = RoutingConfigFileSchema.extend(RoutingChangeMetaSchema.shape);
/** POST /api/bin-routing/config/validate: the same, with reason and author optional. */
export const RoutingValidateRequestSchema = RoutingConfigFileSchema.extend(RoutingChangeMetaSchema.partial().shape);

export const RoutingRestoreRequestSchema = RoutingChangeMetaSchema.extend({
  version: z.int({ error: "version must be an integer" }).min(1).optional().meta({ description: "The version to restore; default: the one before the live one" }),
});

export const RotationOutcomeSchema = z.object({
  group_id: z.int(),
  outcome: z.enum(["kept", "reset", "new", "removed"]),
  reason: z.string(),
  total_calls: z.int().min(0).meta({ description: "The group's calls answered when the change took effect" }),
});

export const RoutingConfigVersionSchema = z.object({
  version: z.int().min(1),
  created_at: Timestamp,
  author: z.string(),
  reason: z.string(),
  client_id: z.string().nullable(),
  restored_from: z.int().nullable(),
  config: RoutingConfigFileSchema,
  rotation: z.array(RotationOutcomeSchema),
});
export type RoutingConfigVersion = z.infer<typeof RoutingConfigVersionSchema>;

export const RoutingValidationSchema = z.object({
  valid: z.boolean(),
  problems: z.array(z.object({ path: z.string(), message: z.string() })),
  rotation: z.array(RotationOutcomeSchema),
  /** The live version the rotation outcomes were judged against; null when none is loaded (absent from services before it was added). */
  live_version: z.int().min(1).nullable().optional(),
});

/** The live version as GET /api/bin-routing/config answers it: the version and each group's state now. */
export const RoutingLiveConfigSchema = RoutingConfigVersionSchema.extend({
  groups_state: z.array(z.object({ group_id: z.int(), total_calls: z.int().min(0), next_gateway_id: z.string().nullable() })),
});
export type RoutingLiveConfig = z.infer<typeof RoutingLiveConfigSchema>;
export type RoutingValidation = z.infer<typeof RoutingValidationSchema>;

// ---------------------------------------------------------------------------------------------
// Preview of a configuration (extension, docs/routing.md "Preview of a configuration"): what the
// routing call would answer for each BIN under the live configuration and under a proposed one,
// decided on copies of the rotation state, so nothing advances and nothing is journalled.

export const ROUTING_CONFIG_PREVIEW_PATH = "/api/bin-routing/config/preview";
export const MAX_PREVIEW_BINS = 500;

export const RoutingPreviewRequestSchema = z.strictObject({
  config: z.unknown().optional().meta({ description: "A configuration in the file format; absent: the live one is the proposed one" }),
  bins: z
    .array(z.string().regex(/^\d{6,8}$/, { error: "each bin must be a string of 6 to 8 digits" }), { error: "bins must be an array of BINs" })
    .min(1, { error: "bins must hold at least one BIN" })
    .max(MAX_PREVIEW_BINS, { error: `bins may hold at most ${MAX_PREVIEW_BINS} BINs` }),
  sales_type: caseInsensitiveEnum(ROUTING_SALES_TYPES).optional(),
});
export type RoutingPreviewRequest = z.input<typeof RoutingPreviewRequestSchema>;

/** What the routing call would answer for one BIN: the rule that matched and the gateway its next call gets. */
export const RoutingDecisionSchema = z.object({
  rule_id: z.int().min(1).nullable().meta({ description: "1-based position of the matching rule in the configuration's rules; null for the fallback" }),
  rule_name: z.string(),
  /** What decided: a BIN rule, a BANK rule, or no rule (the fallback). */
  matched_by: z.enum(["BIN", "BANK", "FALLBACK"]),
  is_fallback: z.boolean(),
  group_id: z.int(),
  group_name: z.string(),
  gateway_id: z.string(),
  reason: z.string().meta({ description: "Why this group, in words" }),
});
export type RoutingDecision = z.infer<typeof RoutingDecisionSchema>;

export const RoutingPreviewRowSchema = z.object({
  bin: z.string(),
  /** null: the routing call would answer 503 (no group with an active member, fallback included). */
  live: RoutingDecisionSchema.nullable(),
  /** null: likewise, or the proposed configuration is not valid. */
  proposed: RoutingDecisionSchema.nullable(),
});

export const RoutingPreviewSchema = z.object({
  live_version: z.int().min(0),
  proposed_valid: z.boolean(),
  problems: z.array(z.object({ path: z.string(), message: z.string() })),
  rows: z.array(RoutingPreviewRowSchema),
});
export type RoutingPreview = z.infer<typeof RoutingPreviewSchema>;
