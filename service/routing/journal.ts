/**
 * Durable routing state with group commit (docs/routing.md, "Durability").
 *
 * The durable record of every answered routing call is an append-only journal next to the database
 * file. Calls are decided in memory (synchronously, so concurrent calls never interleave), queued
 * here, and written in batches (group commit): the calls that arrived in one turn of the event loop,
 * or while earlier batches were being synced, go out as one line and one `fdatasync`. A call's
 * response is sent only after the batch holding its decision is on disk. Each line carries the
 * decisions and the rotation state of the groups they touched, after the batch, plus a sequence number.
 *
 * In the background (every few seconds, and at shutdown) the journal is folded into the DuckDB tables
 * `routing_decisions` and the groups' state rows in one transaction that also records the last folded
 * sequence number; then the folded journal segments are deleted. At start, and before the CLI reads or
 * replaces the configuration, segments left by a crash are replayed the same way (batches at or below
 * the recorded sequence number are skipped, so a crash mid-fold is harmless; a torn last line, a
 * batch whose fdatasync never returned, was never answered and is dropped).
 *
 * This module is the journal's one entry point; the parts live in
 *   journal-segments.ts  the records, the line format and the segment files (shared by both sides)
 *   journal-fold.ts      folding batches into DuckDB (shared by both sides)
 *   journal-writer.ts    the running service's group-commit writer
 *   journal-replay.ts    replaying what a previous process left
 */
export { journalSegments, type DecisionRecord, type StateRecord } from "./journal-segments";
export { foldJournal } from "./journal-replay";
export { RoutingJournal, type JournalOptions } from "./journal-writer";
