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

/** What the BIN field says about its value while typing. */
export function checkBin(raw: string): BinCheck {
  const s = raw.trim();
  if (s === "") return { state: "empty" };
  if (!/^\d+$/.test(s)) return { state: "invalid", message: "A BIN has digits only." };
  if (s.length > 8) return { state: "invalid", message: `A BIN has at most 8 digits; this has ${s.length}.` };
  if (s.length < 6) {
    const more = 6 - s.length;
    return { state: "incomplete", message: `${more} more digit${more === 1 ? "" : "s"} needed (6 to 8).` };
  }
  return { state: "ok", message: `${s.length} digits: a valid BIN.` };
}

export interface BinList {
  /** Valid BINs in the order given (repeats kept: each is a lookup, like an order). */
  bins: string[];
  /** Tokens that are not BINs, with why. */
  invalid: { token: string; reason: string }[];
  tooMany: boolean;
}

/**
 * BINs from pasted text or a file: separated by new lines, commas, semicolons, tabs or spaces; a
 * CSV's header row or quotes are tolerated (a token with no digit is skipped as a header word).
 */
export function parseBinList(text: string): BinList {
  const tokens = text
    .split(/[\s,;]+/)
    .map((t) => t.replace(/^["']|["']$/g, "").trim())
    .filter((t) => t !== "");
  const bins: string[] = [];
  const invalid: { token: string; reason: string }[] = [];
  for (const t of tokens) {
    if (!/\d/.test(t)) continue; // a header such as "bin"
    const c = checkBin(t);
    if (c.state === "ok") bins.push(t);
    else invalid.push({ token: t, reason: c.state === "empty" ? "empty" : c.message });
  }
  return { bins, invalid, tooMany: bins.length > MAX_BULK_BINS };
}
