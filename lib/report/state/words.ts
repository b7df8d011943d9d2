/**
 * Words the report forms and the URL checks share (re-exported by ./url-check.ts): apart from the
 * checks themselves, which the pages whose server parses their URL do not load with their forms
 *.
 */
import { daysBetween } from "@/lib/contract/dates";
import { MAX_RANGE_DAYS } from "./range";

/** A value as quoted back to the user: never the whole of a long paste. */
export function quote(value: string, max = 40): string {
  const v = value.length > max ? `${value.slice(0, max - 1)}…` : value;
  return `“${v}”`;
}

/** The cap as the contract states its own (end ≤ start + N days). */
export function overCapMessage(start: string, end: string): string {
  return `The range ends ${daysBetween(start, end).toLocaleString("en-US")} days after it starts; at most ${MAX_RANGE_DAYS.toLocaleString("en-US")}.`;
}
