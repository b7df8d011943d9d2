/**
 * What an alert rule watches, in words: its target, the rule as a sentence, its recipients and its
 * cool-down, from the catalog's words the server's render hands the page (./vocabulary.ts). Pure: no
 * React.
 */
// Types only from the schemas' modules: their values (and zod) reach the browser through
// ./checked.ts, loaded when the lists are fetched again; the words come from zod-free modules.
import type { AlertDefinition, Recipients } from "@/lib/features/notifications/definition";
import { WINDOW_LABELS, describeCondition } from "@/lib/features/notifications/definition";
import type { Direction } from "@/lib/contract/catalog";
// The catalog's words come from the server's render (./vocabulary.ts): the page loads no catalog.
import type { DimensionDef } from "@/lib/contract/dimensions";
import type { ValueFormat } from "@/lib/report/metrics/format";
import type { Filters } from "@/lib/report/state/filters";
import { describeFiltersBy } from "@/lib/report/state/filter-words";
import type { SelectGroup } from "@/components/ui/select";
import type { DirectoryUser, Programme } from "./answers";

export const targetValue = (t: AlertDefinition["target"]) => (t.kind === "measure" ? `measure:${t.measure}` : `programme:${t.programme}`);

export function parseTarget(value: string): AlertDefinition["target"] | null {
  const [kind, ...rest] = value.split(":");
  const id = rest.join(":");
  if (!id) return null;
  if (kind === "measure") return { kind: "measure", measure: id };
  if (kind === "programme") return { kind: "programme", programme: id };
  return null;
}

/**
 * What the alert forms and lists need of the catalog and the KPI registry for the order summary,
 * derived by the server's render (./vocabulary.ts) and handed to the page as data.
 */
export interface AlertVocabulary {
  /** KPIs and metrics by id: their label, the format of their values, and which way is better. */
  measures: Record<string, { label: string; format: ValueFormat; better: Direction }>;
  /** The target select's groups: KPIs, then the metrics by their group. */
  measureGroups: SelectGroup[];
  /** The order summary's dimensions (filters, "evaluated per", their labels). */
  dimensions: readonly DimensionDef[];
}

/** The target select's groups: KPIs, the order summary's metrics by group, then the Monitor's programmes. */
export function targetGroups(programmes: readonly Programme[], words: AlertVocabulary): SelectGroup[] {
  const groups = [...words.measureGroups];
  if (programmes.length > 0) groups.push({ label: "Monitor programmes", options: programmes.map((p) => ({ value: `programme:${p.id}`, label: `${p.name} (ratio per MID)` })) });
  return groups;
}

/** What a target's values are: a programme's ratio is a rate. */
export function targetFormat(t: AlertDefinition["target"] | null, words: AlertVocabulary): ValueFormat {
  if (!t) return "count";
  if (t.kind === "programme") return "percent";
  return words.measures[t.measure]?.format ?? "count";
}

export function targetLabel(t: AlertDefinition["target"], programmes: readonly Programme[], words: AlertVocabulary): string {
  if (t.kind === "programme") return `${programmes.find((p) => p.id === t.programme)?.name ?? `Programme “${t.programme}”`} ratio`;
  return words.measures[t.measure]?.label ?? `“${t.measure}”`;
}

/** A dimension of the vocabulary by its name. */
export const dimensionOf = (words: AlertVocabulary, name: string) => words.dimensions.find((d) => d.name === name);

/** "Approval rate below 85.00%, over today so far, per Card brand; only Card brand: VISA". */
export function describeRule(d: AlertDefinition, programmes: readonly Programme[], words: AlertVocabulary): string {
  const per = d.target.kind === "programme" ? "per MID and card brand" : d.group_by ? `per ${dimensionOf(words, d.group_by)?.label ?? d.group_by}` : "as a whole";
  const filters = Object.keys(d.filters).length > 0 ? `; only ${describeFiltersBy(d.filters as Filters, (k) => dimensionOf(words, k))}` : "";
  return `${targetLabel(d.target, programmes, words)} ${describeCondition(d.condition, targetFormat(d.target, words))}, over ${WINDOW_LABELS[d.window]}, ${per}${filters}`;
}

/** A measure's name inside a sentence: "revenue", "approval rate"; an acronym stays as it is ("CPA"). */
const inSentence = (label: string) => (/^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label);

/**
 * The rule as the form reads it back before it is saved, a whole sentence: "Fires when the Mastercard
 * Excessive Chargeback Program ratio is above 1.00%, over the month to date, per MID and card brand."
 */
export function ruleSentence(d: AlertDefinition, programmes: readonly Programme[], words: AlertVocabulary): string {
  const what = d.target.kind === "programme" ? `the ${targetLabel(d.target, programmes, words)}` : inSentence(targetLabel(d.target, programmes, words));
  const per = d.target.kind === "programme" ? "per MID and card brand" : d.group_by ? `per ${dimensionOf(words, d.group_by)?.label ?? d.group_by}` : "as a whole";
  const filters = Object.keys(d.filters).length > 0 ? `; only ${describeFiltersBy(d.filters as Filters, (k) => dimensionOf(words, k))}` : "";
  return `Fires when ${what} is ${describeCondition(d.condition, targetFormat(d.target, words))}, over ${WINDOW_LABELS[d.window]}, ${per}${filters}.`;
}

/** "analyst@demo.local, ops@example.com" (users by their e-mail when the directory knows them). */
export function describeRecipients(r: Recipients, users: readonly DirectoryUser[] | undefined, none = "nobody"): string {
  const names = r.users.map((id) => users?.find((u) => u.id === id)?.email ?? `a user no longer active (${id.slice(0, 8)}…)`);
  const all = [...names, ...r.emails];
  return all.length === 0 ? none : all.join(", ");
}

export function describeCooldown(minutes: number): string {
  if (minutes === 0) return "none (told at every evaluation while it fires)";
  const h = minutes / 60;
  const hours = Number.isInteger(h) ? ` (${h} hour${h === 1 ? "" : "s"})` : "";
  return `${minutes} minute${minutes === 1 ? "" : "s"}${hours}`;
}
