/** Access tokens (SPEC.md §1.1): the client-credentials request and the token answer. */
import { z } from "zod";
import { successEnvelope } from "./envelope";

export const TokenRequestSchema = z.strictObject({
  client_id: z.string().min(1).max(128),
  client_secret: z.string().min(1).max(256),
  grant_type: z.literal("client_credentials").optional(),
});

export const TokenResponseSchema = successEnvelope({
  data: z.object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.int().min(1),
  }),
});
