/**
 * The keyboard shortcuts every page offers, and which one a key press means. Single-key shortcuts
 * never fire while the user is typing in a field (a "/" typed into a filter is text); the run shortcut
 * has a modifier, so it works from inside the form it submits.
 */
export type ShortcutAction = "help" | "filters" | "run";

export interface Shortcut {
  action: ShortcutAction;
  keys: string;
  does: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: "help", keys: "?", does: "Show these shortcuts" },
  { action: "filters", keys: "/", does: "Go to the page's filters" },
  { action: "run", keys: "Ctrl + Enter (⌘ + Enter on a Mac)", does: "Run the report (apply the settings)" },
];

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The press happened in a text field, a select or an editable element. */
  typing: boolean;
}

export function shortcutFor(e: KeyPress): ShortcutAction | null {
  if (e.altKey) return null;
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) return "run";
  if (e.ctrlKey || e.metaKey || e.typing) return null;
  if (e.key === "?") return "help";
  if (e.key === "/") return "filters";
  return null;
}
