/**
 * Replay: reading back the journal segments a previous process left (a crash, or an exit that could
 * not fold) and folding them into DuckDB before anything reads the routing state. It runs with no
 * writer active, at the engine's start and before the CLI reads or replaces the configuration, so
 * it is apart from the writer, which only calls it on opening.
 */
import { readFileSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import type { Database } from "../db";
import { appliedSeq, foldInto } from "./journal-fold";
import { fsyncDir, journalSegments, parseBatchLine, type Batch } from "./journal-segments";

/**
 * Replays journal segments left behind (by a crash, or a process that could not fold at exit) into the
 * tables and deletes them. Safe to call at any time no writer is active on this database file.
 */
export async function foldJournal(db: Database): Promise<{ batches: number; decisions: number; tornTail: boolean }> {
  const segments = journalSegments(db.path);
  if (segments.length === 0) return { batches: 0, decisions: 0, tornTail: false };
  const applied = await appliedSeq(db);
  const batches: Batch[] = [];
  let tornTail = false;
  let lastSeq = applied;
  segments.forEach((seg, si) => {
    const lines = readFileSync(seg.path, "utf8").split("\n");
    lines.forEach((line, li) => {
      if (line === "") return;
      const parsed = parseBatchLine(line);
      if (!parsed) {
        const isLastLine = si === segments.length - 1 && lines.slice(li + 1).every((l) => l === "");
        if (isLastLine) {
          tornTail = true; // written but never synced: its calls were never answered
          return;
        }
        throw new Error(`Routing journal ${seg.path} is damaged at line ${li + 1}; it has not been applied (move it away to start without it)`);
      }
      // At or below the checkpoint: folded before a crash that came ahead of the segment's deletion.
      if (parsed.seq <= lastSeq) return;
      lastSeq = parsed.seq;
      batches.push({ seq: parsed.seq, states: parsed.s, decisions: JSON.stringify(parsed.d), count: parsed.d.length, ...(parsed.v ? { config: parsed.v } : {}) });
    });
  });
  if (batches.length > 0) await db.transaction((tx) => foldInto(tx, batches));
  for (const seg of segments) unlinkSync(seg.path);
  fsyncDir(dirname(db.path));
  return { batches: batches.length, decisions: batches.reduce((a, b) => a + b.count, 0), tornTail };
}
