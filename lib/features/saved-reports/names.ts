/**
 * Names of saved reports and dashboards, as their owner tells them apart: the same name is the same
 * text once spaces are collapsed and case is ignored ("Gateways  Q1" and "gateways q1" look alike in
 * a list). Browser-safe: the naming dialog warns with it before saving.
 */
import type { SavedPage } from "@/lib/features/saved-reports/model";

export interface NamedItem {
  id: string;
  name: string;
}

/** What two names are compared by. */
export function nameKey(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLocaleLowerCase("en");
}

/** The owner's item that already has this name, other than `exceptId` (the item being renamed). */
export function sameNamed(name: string, items: readonly NamedItem[], exceptId?: string): NamedItem | null {
  const key = nameKey(name);
  if (key === "") return null;
  return items.find((i) => i.id !== exceptId && nameKey(i.name) === key) ?? null;
}

/** What the page's items are called in the dialog's words. */
export function itemNoun(page: SavedPage): string {
  return page === "dashboard" ? "dashboard" : page === "monitor" ? "monitor view" : "saved report";
}
