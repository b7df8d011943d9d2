/**
 * Evidence beside a BIN's routing answer: the request's schema (the route validates with it), and
 * everything else from bin-evidence-core.ts, which the browser imports without zod.
 */
import { z } from "zod";
import { MAX_BULK_BINS } from "./bin-lookup";

export * from "./bin-evidence-core";

/** Body of POST /api/bin-routing/evidence. */
export const BinEvidenceRequestSchema = z.strictObject({
  bins: z
    .array(z.string().regex(/^\d{6,8}$/, { error: "each BIN must be a string of 6 to 8 digits" }))
    .min(1, { error: "bins must list at least one BIN" })
    .max(MAX_BULK_BINS, { error: `bins takes at most ${MAX_BULK_BINS} BINs` }),
});
