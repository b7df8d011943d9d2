/**
 * How wide a table column must be for its longest value to show whole: the text's width estimated
 * from per-character widths, without a browser (the server's render and the browser's must agree).
 * The widths are those of the widest common UI sans-serif in bold (DejaVu Sans Bold, what Chromium
 * on Linux draws system-ui with), rounded up: a column is never narrower than its numbers, at the
 * price of a few spare pixels in narrower fonts.
 */

/** Table text size, px (Tailwind's text-sm). */
const FONT_PX = 14;
/** Horizontal padding of a cell (px-3 each side) and a margin for rounding and sub-pixel layout. */
const CELL_PADDING = 24 + 6;

/** Width of a character in em. */
function charEm(ch: string): number {
  if (ch >= "0" && ch <= "9") return 0.7;
  switch (ch) {
    case " ":
    case ".":
    case ",":
    case ":":
    case ";":
    case "'":
    case "i":
    case "l":
    case "j":
    case "|":
      return 0.4;
    case "(":
    case ")":
    case "[":
    case "]":
    case "f":
    case "t":
    case "r":
      return 0.5;
    case "$":
    case "#":
      return 0.7;
    case "+":
    case "\u2212":
    case "-":
    case "=":
    case "…":
      return 0.84;
    case "%":
    case "m":
    case "w":
    case "M":
    case "W":
    case "—":
      return 1.05;
  }
  if (ch >= "A" && ch <= "Z") return 0.82;
  return 0.72;
}

/** Estimated width in px of one line of table text. */
export function textWidth(text: string): number {
  let em = 0;
  for (const ch of text) em += charEm(ch);
  return Math.ceil(em * FONT_PX);
}

/**
 * The width a column needs: at least `min`, and enough for the widest of `texts` with its padding.
 * Only texts near the longest are measured (a width per character is never below 0.4 em, nor above
 * 1.05 em), so ten thousand rows cost little.
 */
export function fitColumnWidth(min: number, texts: Iterable<string>): number {
  const all = [...texts];
  const longest = all.reduce((n, t) => Math.max(n, t.length), 0);
  const shortestThatCanWin = Math.floor((longest * 0.4) / 1.05);
  let widest = 0;
  for (const t of all) if (t.length >= shortestThatCanWin) widest = Math.max(widest, textWidth(t));
  return Math.max(min, widest + CELL_PADDING);
}
