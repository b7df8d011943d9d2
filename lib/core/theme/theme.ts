/**
 * The colour scheme: the reader's choice (System, Light or Dark) is kept per browser in localStorage;
 * System follows the operating system's prefers-color-scheme, also when it changes while a page is open.
 * The choice is applied by THEME_SCRIPT, which the root layout puts in <head>, so the page's first
 * paint already has its scheme; the nav's toggle writes the choice and asks the script to apply it.
 */

export const THEME_CHOICES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export const THEME_LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

/** The localStorage key holding "light" or "dark"; absent (or anything else) means System. */
export const THEME_STORAGE_KEY = "theme";
/** Dispatched on window after the choice changed in this tab; the script re-applies it. */
export const THEME_CHANGE_EVENT = "themechange";
/** The class on <html> that switches the palette (app/globals.css) and the `dark:` variant. */
export const DARK_CLASS = "dark";
/** The attribute on <html> naming the applied choice, for the toggle and for tests. */
export const CHOICE_ATTRIBUTE = "data-theme-choice";

export function parseThemeChoice(stored: string | null | undefined): ThemeChoice {
  return stored === "light" || stored === "dark" ? stored : "system";
}

/** The choice the page applied (the script's attribute on <html>); System before it ran. */
export function appliedThemeChoice(): ThemeChoice {
  return parseThemeChoice(document.documentElement.getAttribute(CHOICE_ATTRIBUTE));
}

/** Keeps the choice (System removes the key) and applies it to this tab at once. */
export function saveThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === "system") window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage refused: the choice still applies to this page, it is just not remembered.
  }
  window.dispatchEvent(new CustomEvent<ThemeChoice>(THEME_CHANGE_EVENT, { detail: choice }));
}

/**
 * Runs in <head> before the body is parsed: sets the class and the choice attribute on <html>, then
 * re-applies when the system's scheme changes, when another tab changes the choice (storage event) and
 * when this tab's toggle does (THEME_CHANGE_EVENT, whose detail wins when storage is refused).
 * Plain ES5 with no imports: it is sent as the script's text.
 */
export const THEME_SCRIPT = `(function () {
  var root = document.documentElement;
  var media = window.matchMedia("(prefers-color-scheme: dark)");
  function stored() {
    try { return window.localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)}); } catch (e) { return null; }
  }
  function apply(value) {
    var choice = value === "light" || value === "dark" ? value : "system";
    var dark = choice === "dark" || (choice === "system" && media.matches);
    root.classList.toggle(${JSON.stringify(DARK_CLASS)}, dark);
    root.setAttribute(${JSON.stringify(CHOICE_ATTRIBUTE)}, choice);
  }
  apply(stored());
  media.addEventListener("change", function () { apply(root.getAttribute(${JSON.stringify(CHOICE_ATTRIBUTE)})); });
  window.addEventListener("storage", function (e) {
    if (e.key === null || e.key === ${JSON.stringify(THEME_STORAGE_KEY)}) apply(stored());
  });
  window.addEventListener(${JSON.stringify(THEME_CHANGE_EVENT)}, function (e) { apply(e.detail); });
})();`;
