/**
 * BIN lookup input helpers (pure): the live check of one BIN as it is typed, and the parsing of a
 * pasted or uploaded list for the bulk mode.
 */
import { midName } from "@/lib/report/mid-name";

export const MAX_BULK_BINS = 100;

export type BinCheck =
  | { state: "empty" }
  | { state: "incomplete"; message: string }
  | { state: "invalid"; message: string }
  | { state: "ok"; message: string };

/** What a BIN is, in a user's words: every message about a BIN starts from it. */
export const BIN_MEANING = "A BIN is the first 6 to 8 digits of the card number";

/** How many digits a card number (PAN) has: ISO/IEC 7812 numbers as printed on cards. */
export const CARD_DIGITS = { min: 12, max: 19 } as const;

/** The BIN this product takes from a card number: the longest the routing contract accepts. */
export const BIN_FROM_CARD = 8;

/**
 * Digit groups joined by single spaces or dashes, as card numbers are printed ("4111 1111 1111 1111",
 * "3782-822463-10005"). A run of at least CARD_DIGITS.min digits in one is card data.
 */
const DIGIT_RUN = /\d(?:[ -]?\d)*/g;

export interface BinInput {
  /** What the BIN field holds from now on: never more of a card number than its BIN. */
  value: string;
  /** Set when a card number was cut to its BIN; the digits after the BIN were not kept. */
  fromCard?: { bin: string; digits: number };
  /** The card number came a key at a time (nextBinInput), not whole in one paste. */
  typed?: true;
}

/**
 * What the BIN field keeps of what was typed or pasted. A card number (a run of 12 or more digits,
 * spaces and dashes allowed) gives its first 8 digits and nothing else of the text survives: the
 * rest of a card number is not the dashboard's to hold. Otherwise spaces and dashes between digits
 * are dropped ("4147 20" is 414720) and anything else is kept as typed, for the check to explain.
 */
export function takeBinInput(raw: string): BinInput {
  for (const m of raw.matchAll(DIGIT_RUN)) {
    const digits = m[0].replace(/[ -]/g, "");
    if (digits.length >= CARD_DIGITS.min) {
      const bin = digits.slice(0, BIN_FROM_CARD);
      return { value: bin, fromCard: { bin, digits: digits.length } };
    }
  }
  const s = raw.trim();
  return /^\d(?:[ -]*\d)*$/.test(s) ? { value: s.replace(/[ -]/g, "") } : { value: raw };
}

/**
 * What the field holds after one more edit, given what it held. A card number typed key by key never
 * reaches the field whole, so takeBinInput alone would hold its 9th to 11th digits (too few for a
 * card number) and, past the 12th, begin again from its BIN. Here, once a whole BIN (8 digits) is
 * followed by more digits typed after it, the field is reading a card number: the BIN stays and each
 * later digit is only counted, so no digit after the BIN is ever held. Spaces and dashes between the
 * groups are allowed, as printed on cards. Any other edit (a paste, a deletion, a digit typed inside
 * the BIN, a letter) is read afresh by takeBinInput.
 */
export function nextBinInput(prev: BinInput, raw: string): BinInput {
  const bin = prev.value.replace(/[ -]+$/, "");
  if (bin.length === BIN_FROM_CARD && /^\d+$/.test(bin) && raw.startsWith(bin)) {
    const tail = raw.slice(bin.length);
    const more = tail.replace(/[ -]/g, "").length;
    if (/^[\d -]+$/.test(tail) && (prev.fromCard !== undefined || more > 0)) {
      const digits = (prev.fromCard?.digits ?? BIN_FROM_CARD) + more;
      const typed = prev.fromCard === undefined || prev.typed === true;
      return { value: bin, fromCard: { bin, digits }, ...(typed ? { typed: true as const } : {}) };
    }
  }
  return takeBinInput(raw);
}

/** What the field says after cutting a card number to its BIN, quoting the BIN only. */
export function fromCardNote(c: NonNullable<BinInput["fromCard"]>, how: "pasted" | "typed" = "pasted"): string {
  const odd = c.digits > CARD_DIGITS.max ? ` That was ${c.digits} digits, more than a card number has (${CARD_DIGITS.min} to ${CARD_DIGITS.max}): check the BIN.` : "";
  return `Using BIN ${c.bin} from the ${how} card number; the rest of the number was not kept.${odd}`;
}

/** What the BIN field says about its value while typing. */
export function checkBin(raw: string): BinCheck {
  const s = raw.trim();
  if (s === "") return { state: "empty" };
  if (!/^\d+$/.test(s)) return { state: "invalid", message: `${BIN_MEANING}: digits only, no letters or other signs.` };
  if (s.length > 8) return { state: "invalid", message: `${BIN_MEANING}; this has ${s.length} digits. A whole card number (${CARD_DIGITS.min} to ${CARD_DIGITS.max} digits) can be typed or pasted: its first ${BIN_FROM_CARD} are used.` };
  if (s.length < 6) {
    const more = 6 - s.length;
    return { state: "incomplete", message: `${BIN_MEANING}: ${more} more digit${more === 1 ? "" : "s"} needed.` };
  }
  return { state: "ok", message: `${s.length} digits: a valid BIN.` };
}

export interface BinList {
  /** Distinct valid BINs in the order given. */
  bins: string[];
  /** Every token that will not be looked up, with why (a card number only by its BIN). */
  unused: { token: string; reason: string }[];
  tooMany: boolean;
  /** Card numbers whose first 8 digits were taken as their BIN. */
  cards: number;
}

/**
 * A grouped card number in a list: at least three groups of digits joined by single spaces or
 * dashes, the first of 4 digits, 12 to 19 digits in all ("4111 1111 1111 1111", "3782 822463 10005").
 * BINs are 6 to 8 digits, so no list of BINs separated by spaces looks like this, and dates
 * (2-digit groups) do not either.
 */
const GROUPED_CARD = /(?<![\d-])\d{4}(?:[ -]\d{3,7}){2,}(?![\d-])/g;

/**
 * A list with every card number in it replaced by its BIN (first 8 digits), so that the text kept
 * and shown holds no more of a card than its BIN: grouped card numbers (GROUPED_CARD) and runs of
 * 12 or more digits.
 */
export function cutCardNumbers(text: string): { text: string; cards: number } {
  let cards = 0;
  const cut = (m: string) => {
    const digits = m.replace(/[ -]/g, "");
    if (digits.length < CARD_DIGITS.min) return m;
    cards++;
    return digits.slice(0, BIN_FROM_CARD);
  };
  const out = text.replace(GROUPED_CARD, cut).replace(/\d{12,}/g, cut);
  return { text: out, cards };
}

/**
 * BINs from pasted text or a file. Entries are separated by new lines, commas, semicolons or tabs,
 * and by spaces except inside a grouped card number (cutCardNumbers), which is one card.
 * Quotes around a token are tolerated. A card number (12 to 19 digits, grouped or not) gives its
 * first 8 digits. Every token is either a BIN to look up or listed with why it is not: not a number
 * (a CSV header, a name), too short, too long, or a duplicate of one already listed.
 */
export function parseBinList(text: string): BinList {
  const { text: cut, cards } = cutCardNumbers(text);
  const tokens = cut
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
  return { bins, unused, tooMany: bins.length > MAX_BULK_BINS, cards };
}

/** A gateway as every surface names a MID (lib/report/mid-name.ts): "Chase East (#12)", or "MID #12" when no report has named it. */
export function gatewayLabel(id: string, names: Readonly<Record<string, string>>): string {
  return midName(id, names[id]);
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
