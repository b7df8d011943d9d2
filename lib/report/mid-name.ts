/**
 * A MID (a gateway, as the reports call it) in words, the same on every surface: its alias with its
 * id, "Wells 02 (#2)", or "MID #2" when no answer fetched so far has named it. Lists of MIDs sort by
 * the id's number (1, 2, … 10, 11), never as text (1, 10, 11, 2).
 */

/** "Wells 02 (#2)"; "MID #2" when the alias is not known (null, undefined or blank). */
export function midName(id: number | string, alias?: string | null): string {
  const name = alias?.trim();
  return name ? `${name} (#${id})` : `MID #${id}`;
}

/** The id as a number, for sorting; NaN when it is not one (such ids sort after every number, as text). */
function idNumber(id: number | string): number {
  if (typeof id === "number") return id;
  const t = id.trim();
  return /^-?\d+$/.test(t) ? Number(t) : Number.NaN;
}

/** Order of two MIDs by their ids' numbers: 1, 2, … 10, 11. */
export function compareMidIds(a: number | string, b: number | string): number {
  const x = idNumber(a);
  const y = idNumber(b);
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  if (xn || yn) return xn && yn ? String(a).localeCompare(String(b), "en-US") : xn ? 1 : -1;
  return x - y;
}
