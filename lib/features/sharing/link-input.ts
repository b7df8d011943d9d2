/**
 * What the owner may ask of a new share link, checked the same way by the API and by the panel that
 * makes links: an optional label, an expiry in hours or in days (at most SHARE_LIMITS.maxDays either
 * way), a password, live or snapshot, presets. Plus the token's tail: the few last characters kept
 * beside the hash so the owner can tell links apart, never enough to open one.
 */
import { z } from "zod";
import { SHARE_MODES } from "@/lib/features/sharing/model";
import { SHARE_LIMITS } from "./service";

/** A label is a short note for the owner ("for the bank manager"), shown in the list of links. */
export const LABEL_MAX = 80;

/**
 * Characters of the token kept and shown. 6 of the 43 base64url characters: 36 of the token's 256
 * bits, leaving 220 unknown, so the tail tells links apart without weakening them.
 */
export const TOKEN_TAIL_LENGTH = 6;

export const EXPIRY_UNITS = ["hours", "days"] as const;
export type ExpiryUnit = (typeof EXPIRY_UNITS)[number];

/** The longest expiry in each unit: the same instant, maxDays from now. */
export const MAX_EXPIRY: Record<ExpiryUnit, number> = { hours: SHARE_LIMITS.maxDays * 24, days: SHARE_LIMITS.maxDays };

const HOUR_MS = 3_600_000;

export const LinkLabel = z
  .string()
  .trim()
  .max(LABEL_MAX, { error: `a label has at most ${LABEL_MAX} characters` })
  // Control characters would make the list (and the confirmation naming the link) lie about it.
  .regex(/^[^\p{Cc}]*$/u, { error: "a label cannot contain control characters" })
  .transform((s) => (s === "" ? null : s));

export const ShareLinkInput = z
  .strictObject({
    label: LinkLabel.optional(),
    expires_in_days: z.int().min(1).max(MAX_EXPIRY.days).optional(),
    expires_in_hours: z.int().min(1).max(MAX_EXPIRY.hours).optional(),
    password: z.string().min(8, { error: "a link password needs at least 8 characters" }).max(200).optional(),
    mode: z.enum(SHARE_MODES).default("live"),
    allowed_presets: z.array(z.string()).max(20).optional(),
  })
  .refine((v) => v.expires_in_days === undefined || v.expires_in_hours === undefined, {
    error: "give the expiry in hours or in days, not both",
    path: ["expires_in_hours"],
  });
export type ShareLinkInput = z.output<typeof ShareLinkInput>;
/** A new link as the panel asks the API for it. */
export type ShareLinkRequest = z.input<typeof ShareLinkInput>;

/** How long a link lives, in hours: hours as given, days as 24 hours each, or the default days. */
export function expiryHours(input: { expiresInHours?: number | undefined; expiresInDays?: number | undefined }): number {
  if (input.expiresInHours !== undefined) return input.expiresInHours;
  return (input.expiresInDays ?? SHARE_LIMITS.defaultDays) * 24;
}

/** The expiry instant of a link made at `now` that lives `hours`. */
export function expiresAt(hours: number, now: Date): Date {
  return new Date(now.getTime() + hours * HOUR_MS);
}

/** The token's last characters, the only part of it kept after it is handed out. */
export function tokenTail(token: string): string {
  if (token.length <= TOKEN_TAIL_LENGTH * 4) throw new Error("a token this short cannot show its tail");
  return token.slice(-TOKEN_TAIL_LENGTH);
}
