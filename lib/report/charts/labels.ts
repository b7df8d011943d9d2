/**
 * How a chart's category axis fits its labels, decided from the label count, the longest label and
 * the container's width, as a pure function (the drawing only follows it). No label is ever hidden
 * silently: labels are set straight when they fit, rotated when they do not, bars laid on their side
 * when category names are long or many, cut with "…" past a length (the full text stays in the
 * tick's <title> and the tooltip), and when only every n-th label can be shown, the note says so.
 */

/** Below this container width (px) the chart is laid out for a phone. */
export const PHONE_WIDTH = 480;

/** Approximate width of a 12 px label character (capitals are wider: a generous mean), and of a line of labels. */
const CHAR = 7.5;
const LINE = 20;
/** Height of one horizontal bar's row. */
const ROW = 22;

export interface LabelSpace {
  /** Number of labels (x values) on the category axis. */
  count: number;
  /** The longest label, in characters. */
  maxLength: number;
  /** The chart container's width in px. */
  width: number;
  /** Labels are names of categories, not consecutive dates (showing every n-th would hide names). */
  categorical: boolean;
  /** The chart may lay its bars on their side (bars over categories). */
  canGoHorizontal: boolean;
  /** A second value axis on the right takes room. */
  rightAxis: boolean;
}

export interface LabelLayout {
  /** straight: labels level under the x axis; rotated: slanted 45°; horizontal: bars on their side, labels on the y axis. */
  mode: "straight" | "rotated" | "horizontal";
  angle: 0 | -45;
  /** Labels longer than this are cut with "…" (the full text in a <title>); null: never cut. */
  maxChars: number | null;
  /** Every `step`-th label is shown (1: all of them). */
  step: number;
  /** Room for the labels: the x axis height, or the y axis width when horizontal. */
  axisSize: number;
  /** Height of the plot in px. */
  height: number;
  /** Ticks on a value axis. */
  valueTicks: number;
  /** Width of a value axis in px. */
  valueAxisWidth: number;
  /** Laid out for a phone width. */
  compact: boolean;
  /** What the reader is told about labels not shown in full; null: every label is shown whole. */
  note: string | null;
}

/** 2 → "2nd", 3 → "3rd", 11 → "11th", 22 → "22nd". */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

/**
 * A label cut to `maxChars` characters, "…" included, in the middle: the start and the end both stay,
 * since names of one kind often differ only at the end ("… Bank, N.A. - DEBIT"). Unchanged when it
 * fits or `maxChars` is null.
 */
export function shorten(label: string, maxChars: number | null): string {
  if (maxChars === null || label.length <= maxChars) return label;
  const keep = Math.max(1, maxChars - 1);
  const head = Math.ceil(keep * 0.6);
  const tail = keep - head;
  return `${label.slice(0, head).trimEnd()}…${tail > 0 ? label.slice(label.length - tail).trimStart() : ""}`;
}

export function labelLayout(s: LabelSpace): LabelLayout {
  const compact = s.width < PHONE_WIDTH;
  const count = Math.max(1, s.count);
  const valueAxisWidth = compact ? 48 : 64;
  const height = compact ? 270 : 302;
  const valueTicks = compact ? 4 : 5;
  const plot = Math.max(40, s.width - valueAxisWidth - (s.rightAxis ? valueAxisWidth : 0) - 24);
  const slot = plot / count;
  const common = { valueTicks, valueAxisWidth, compact };
  const cutNote = "Long names are shortened with …; hover over one (or focus the chart) for its full text.";

  // Level labels when each fits its slot.
  if (s.maxLength * CHAR + 8 <= slot) {
    return { ...common, mode: "straight", angle: 0, maxChars: null, step: 1, axisSize: 24, height, note: null };
  }

  // Category names that are long, crowded, or on a phone: bars on their side, one row per name.
  if (s.canGoHorizontal && (s.maxLength > 12 || slot < LINE || compact)) {
    const room = Math.floor(s.width * (compact ? 0.4 : 0.3));
    const need = Math.ceil(s.maxLength * CHAR) + 16;
    const maxChars = need > room ? Math.max(4, Math.floor((room - 16) / CHAR)) : null;
    return {
      ...common,
      mode: "horizontal",
      angle: 0,
      maxChars,
      step: 1,
      axisSize: Math.min(need, room),
      height: Math.max(height, count * ROW + 40 + (s.rightAxis ? 30 : 0)),
      note: maxChars !== null ? cutNote : null,
    };
  }

  // Slanted labels, cut past a length, and thinned when even slanted ones would overlap.
  const cap = compact ? 12 : 18;
  const maxChars = s.maxLength > cap ? cap : null;
  const shown = Math.min(s.maxLength, cap);
  const step = slot >= LINE ? 1 : Math.ceil(LINE / slot);
  const notes: string[] = [];
  if (step > 1) {
    notes.push(
      `Every ${ordinal(step)} ${s.categorical ? "label" : "date"} is labelled (${s.count} in all); hover over the chart (or focus it and use the arrow keys) for each one.`,
    );
  }
  if (maxChars !== null) notes.push(cutNote);
  return {
    ...common,
    mode: "rotated",
    angle: -45,
    maxChars,
    step,
    axisSize: Math.ceil(shown * CHAR * Math.SQRT1_2) + 16,
    height,
    note: notes.length > 0 ? notes.join(" ") : null,
  };
}
