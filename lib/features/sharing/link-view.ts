/**
 * How a share link is named to its owner, in the list and in the questions about it: its label, the
 * last characters of its token, and when it was made, so two links of the same day never look alike.
 * Browser-safe: the panel of links uses it.
 */
import { formatInstant } from "@/lib/report/metrics/format";

export interface LinkIdentity {
  label: string | null;
  tokenTail: string | null;
  createdAt: string;
}

/** "…Ab3x_9", or a dash for a link made before token tails were kept. */
export function tailText(l: Pick<LinkIdentity, "tokenTail">): string {
  return l.tokenTail ? `…${l.tokenTail}` : "—";
}

/** The link in one phrase: “For the bank” (ending …Ab3x_9, created 2026-03-28 14:05:09 Europe/Berlin). */
export function describeLink(l: LinkIdentity, timeZone: string): string {
  const name = l.label ? `“${l.label}”` : "the unlabelled link";
  const details = [l.tokenTail ? `ending ${tailText(l)}` : null, `created ${formatInstant(l.createdAt, timeZone)}`].filter((x) => x !== null);
  return `${name} (${details.join(", ")})`;
}

/** The expiry a number and a unit ask for, in words: "6 hours", "1 day". */
export function expiryWords(amount: number, unit: "hours" | "days"): string {
  const one = unit === "hours" ? "hour" : "day";
  return `${amount} ${amount === 1 ? one : unit}`;
}
