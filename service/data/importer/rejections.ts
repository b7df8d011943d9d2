/**
 * An import's rejections: each rejected row's file, line and reason, the first REPORTED_REJECTIONS of
 * them in file and line order kept with all their reasons, and every rejected row counted. Both
 * phases of the checks add to them (./validate-file.ts, ./check-staged.ts).
 */
import { TABLES } from "./format";

export interface ImportRejection {
  file: string;
  /** 1-based physical line of the file (the header is line 1); 0 for a problem with the file itself. */
  line: number;
  reason: string;
}

/** Rejected rows reported with their reasons, at most: the first in file and line order. */
export const REPORTED_REJECTIONS = 1000;

/**
 * The rejected rows: how many, and the first `limit` of them (in file and line order) with their
 * reasons. A file of millions of bad rows (a date column in the wrong format) is one mistake to fix,
 * and keeping every rejection would grow with the file: a JavaScript Map stops at 2^24 entries.
 * Rows are counted where they are found: phase 1 as it rejects each (`reject`), phase 2 in SQL
 * (`countRows`), a row failing several checks once.
 */
export class Rejections {
  private readonly kept = new Map<string, ImportRejection>();
  /** Once trimmed: no row after this one can be among the first `limit`. */
  private last: ImportRejection | null = null;
  private counted = 0;

  constructor(readonly limit = REPORTED_REJECTIONS) {}

  /** A row rejected for the first time, and why: counted, and kept if among the first. */
  reject(file: string, line: number, reason: string): void {
    this.counted++;
    this.add(file, line, reason);
  }

  /** A reason for a row counted elsewhere (`countRows`); added to its other reasons. */
  add(file: string, line: number, reason: string): void {
    const k = `${file}\u0000${line}`;
    const prev = this.kept.get(k);
    if (prev) {
      prev.reason += `; ${reason}`;
      return;
    }
    const r = { file, line, reason };
    if (this.last && compareRejections(r, this.last) > 0) return;
    this.kept.set(k, r);
    if (this.kept.size >= 2 * this.limit) this.trim();
  }

  countRows(n: number): void {
    this.counted += n;
  }

  /** Rows rejected. */
  get size(): number {
    return this.counted;
  }

  /** The first `limit` rejected rows, in file and line order. */
  sorted(): ImportRejection[] {
    return [...this.kept.values()].sort(compareRejections).slice(0, this.limit);
  }

  private trim(): void {
    const first = this.sorted();
    this.kept.clear();
    for (const r of first) this.kept.set(`${r.file}\u0000${r.line}`, r);
    this.last = first.at(-1) ?? null;
  }
}

function compareRejections(a: ImportRejection, b: ImportRejection): number {
  const order = (f: string) => TABLES.findIndex((t) => t.file === f);
  return order(a.file) - order(b.file) || a.file.localeCompare(b.file) || a.line - b.line;
}
