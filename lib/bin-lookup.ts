/**
 * BIN lookup input helpers (pure): the live check of one BIN as it is typed, and the parsing of a
 * pasted or uploaded list for the bulk mode.
 */

export const MAX_BULK_BINS = 100;

export type BinCheck =
  | { state: "empty" }
  | { state: "incomplete"; message: string }
  | { state: "invalid"; message: string }
  | { state: "ok"; message: string };

/** What a BIN is, in a user's words: every message about a BIN starts from it. */
export const BIN_MEANING = "A BIN is the first 6 to 8 digits of the card number";

/** What the BIN field says about its value while typing. */
export function checkBin(raw: string): BinCheck {
  const s = raw.trim();
  if (s === "") return { state: "empty" };
  if (!/^\d+$/.test(s)) return { state: "invalid", message: `${BIN_MEANING}: digits only, no letters, spaces or dashes.` };
  if (s.length > 8) return { state: "invalid", message: `${BIN_MEANING}; this has ${s.length} digits.` };
  if (s.length < 6) {
    const more = 6 - s.length;
    return { state: "incomplete", message: `${BIN_MEANING}: ${more} more digit${more === 1 ? "" : "s"} needed.` };
  }
  return { state: "ok", message: `${s.length} digits: a valid BIN.` };
}

export interface BinList {
  /** Distinct valid BINs in the order given. */
  bins: string[];
  /** Every token that will not be looked up, with why. */
  unused: { token: string; reason: string }[];
  tooMany: boolean;
}

/**
 * BINs from pasted text or a file: separated by new lines, commas, semicolons, tabs or spaces; quotes
 * around a token are tolerated. Every token is either a BIN to look up or listed with why it is not:
 * not a number (a CSV header, a name), too short, too long, or a duplicate of one already listed.
 */
export function parseBinList(text: string): BinList {
  const tokens = text
    .split(/[\s,;]+/)
    .map((t) => t.replace(/^["']|["']$/g, "").trim())
    .filter((t) => t !== "");
  const bins: string[] = [];
  const unused: { token: string; reason: string }[] = [];
  for (const t of tokens) {
    if (!/^\d+$/.test(t)) unused.push({ token: t, reason: "not a number" });
    else if (t.length < 6) unused.push({ token: t, reason: `too short (${t.length} digit${t.length === 1 ? "" : "s"}; a BIN has 6 to 8)` });
    else if (t.length > 8) unused.push({ token: t, reason: `too long (${t.length} digits; a BIN has 6 to 8)` });
    else if (bins.includes(t)) unused.push({ token: t, reason: "duplicate" });
    else bins.push(t);
  }
  return { bins, unused, tooMany: bins.length > MAX_BULK_BINS };
}

/** A gateway as reports name it: "Chase East (#12)", or "#12" with a plain note when no report has named it. */
export function gatewayLabel(id: string, names: Readonly<Record<string, string>>): string {
  const name = names[id];
  return name ? `${name} (#${id})` : `#${id} (name not known)`;
}

export type LookupMode = "preview" | "route";

/** How each kind of lookup is described to the user. */
export const LOOKUP_MODES: Record<LookupMode, { label: string; hint: string; done: string }> = {
  preview: {
    label: "Preview",
    hint: "Which gateway the BIN would get now. Nothing advances and nothing is recorded.",
    done: "Preview: not routed",
  },
  route: {
    label: "Route as a real order",
    hint: "Routes like an order: the group's rotation advances and the decision is recorded.",
    done: "Routed as a real order",
  },
};
