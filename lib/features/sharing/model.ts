/**
 * Share links as the owner's panel and the API see them: what a link serves, what its list shows,
 * and the bounds of the form that makes one. Types and constants only: the browser imports them, the
 * store (./links-store.ts) reads its rows into them.
 */

/** What a share link serves: the report run live, or the answer frozen when the link was made. */
export const SHARE_MODES = ["live", "snapshot"] as const;
export type ShareMode = (typeof SHARE_MODES)[number];

export interface ShareLink {
  id: string;
  reportId: string;
  createdBy: string;
  /** The owner's note, e.g. "for the bank manager"; null when none was given. */
  label: string | null;
  /** The token's last characters (lib/features/sharing/link-input.ts); null for links made before they were kept. */
  tokenTail: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  hasPassword: boolean;
  mode: ShareMode;
  allowedPresets: string[];
  viewCount: number;
  lastViewedAt: string | null;
}

/**
 * A link as the report's list shows it: `paused` when the user who made it may no longer share the
 * report (their role changed), so it is not served and they cannot revoke it: the owner or an admin can.
 */
export type ListedLink = ShareLink & { paused: boolean };

/** The bounds the panel that makes links shows and checks before sending (./links.ts LINK_FORM_LIMITS). */
export interface LinkFormLimits {
  labelMax: number;
  maxHours: number;
  maxDays: number;
}
