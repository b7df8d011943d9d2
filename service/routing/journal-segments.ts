/**
 * The routing journal on disk: the records it holds, one batch per line, and the segment files next to
 * the database file. Both sides of the journal (journal-writer.ts, which appends, and
 * journal-replay.ts, which reads back what a previous process left) must agree on exactly this, so it
 * lives apart from either.
 */
import { closeSync, fsyncSync, openSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ConfigVersion } from "./versions";

/** One answered call, as journaled (short keys: this is written once per call). */
export interface DecisionRecord {
  /** decided at, Unix ms */
  t: number;
  /** bin */
  b: string;
  /** sales type */
  s?: "INITIALS" | "REBILLS";
  /** rule name */
  r: string;
  /** is fallback */
  f: boolean;
  /** group id */
  g: number;
  /** gateway id */
  w: number;
  /** the group's total_calls after this call */
  n: number;
  /** customer id */
  c?: string;
  /** product id */
  p?: string;
  /** SHA-256 (hex) of the lower-cased e-mail */
  e?: string;
  /** API client */
  k?: string;
}

/** A group's rotation state after a batch. */
export interface StateRecord {
  g: number;
  n: number;
  p: number;
  c: number[];
  r: number | null;
}

/**
 * A new configuration version, applied after the batch's decisions: the version itself and the
 * rotation state of every group of it from then on, with the signature of its member list.
 */
export interface ConfigChangeRecord {
  version: ConfigVersion;
  states: (StateRecord & { sig: string })[];
}

/** A batch on its way into DuckDB. */
export interface Batch {
  seq: number;
  states: StateRecord[];
  config?: ConfigChangeRecord;
  /** The batch's decisions as a JSON array text (kept as written, folded into DuckDB as is). */
  decisions: string;
  count: number;
}

/** One line of a segment, as parsed. */
export interface BatchLine {
  seq: number;
  s: StateRecord[];
  d: DecisionRecord[];
  v?: ConfigChangeRecord;
}

const SEGMENT_SUFFIX = ".jnl";

function segmentPrefix(dbPath: string): string {
  return `${basename(dbPath)}.routing-journal.`;
}

/** The path of segment number `no` of a database file. */
export function segmentPath(dbPath: string, no: number): string {
  return join(dirname(dbPath), `${segmentPrefix(dbPath)}${String(no).padStart(8, "0")}${SEGMENT_SUFFIX}`);
}

/** Journal segments of a database file, oldest first. */
export function journalSegments(dbPath: string): { path: string; no: number }[] {
  const dir = dirname(dbPath);
  const prefix = segmentPrefix(dbPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith(SEGMENT_SUFFIX))
    .map((n) => ({ path: join(dir, n), no: Number(n.slice(prefix.length, -SEGMENT_SUFFIX.length)) }))
    .filter((s) => Number.isSafeInteger(s.no))
    .sort((a, b) => a.no - b.no);
}

/** Makes the creation or removal of segments in `dir` durable. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Not every platform can fsync a directory; the file's own fdatasync still holds its contents.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A batch's line, newline included; `decisions` is the JSON array text of its decisions. */
export function encodeBatchLine(seq: number, states: readonly StateRecord[], decisions: string, config?: ConfigChangeRecord): Buffer {
  const v = config ? `,"v":${JSON.stringify(config)}` : "";
  return Buffer.from(`{"seq":${seq},"s":${JSON.stringify(states)},"d":${decisions}${v}}\n`, "utf8");
}

function isBatchLine(v: unknown): v is BatchLine {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  const change = o.v as Record<string, unknown> | undefined;
  const configOk = change === undefined || (typeof change === "object" && change !== null && typeof change.version === "object" && change.version !== null && Array.isArray(change.states));
  return Number.isSafeInteger(o.seq) && Array.isArray(o.s) && Array.isArray(o.d) && configOk;
}

/** The batch a line holds, or undefined when the line is not one (torn or damaged). */
export function parseBatchLine(line: string): BatchLine | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isBatchLine(parsed) ? parsed : undefined;
}
