/**
 * Folding journal batches into DuckDB: their decisions into `routing_decisions`, the groups' latest
 * rotation states into their state rows, and the last folded sequence number into
 * `routing_journal_checkpoint`, all in the caller's transaction; a batch carrying a new configuration
 * version also replaces the configuration tables and every group's state row. The live writer's background fold and
 * the replay at start both end here, and the checkpoint is what lets a replay skip what a fold already
 * applied, so the two must fold exactly alike.
 */
import type { Database, Tx } from "../db";
import { replaceAllGroupStates, storedGroupState, updateRotationState } from "./group-state";
import { insertVersion, writeConfigTables } from "./versions";
import type { Batch, StateRecord } from "./journal-segments";

/** Decisions per INSERT when they are passed as a parameter, which bounds the size of one JSON text. */
const INSERT_CHUNK = 5000;

/** A journaled decision's fields as DuckDB reads them (see DecisionRecord). */
const DECISION_COLUMNS = { t: "BIGINT", b: "VARCHAR", s: "VARCHAR", r: "VARCHAR", f: "BOOLEAN", g: "INTEGER", w: "INTEGER", n: "BIGINT", c: "VARCHAR", p: "VARCHAR", e: "VARCHAR", k: "VARCHAR" };
const DECISION_JSON_SHAPE = JSON.stringify([DECISION_COLUMNS]);
const DECISION_STRUCT = `STRUCT(${Object.entries(DECISION_COLUMNS)
  .map(([name, type]) => `${name} ${type}`)
  .join(", ")})[]`;
/** A decision `r` as a `routing_decisions` row. */
const DECISION_ROW = "epoch_ms(r.t), r.b, r.s, r.r, r.f, r.g, r.w, r.n, r.c, r.p, r.e, r.k";

/** The sequence number of the last batch folded into the tables (0 before the first). */
export async function appliedSeq(db: Database): Promise<number> {
  const rows = await db.all<{ s: string | number | null }>("SELECT max(applied_seq) AS s FROM routing_journal_checkpoint");
  return Number(rows[0]?.s ?? 0);
}

/**
 * Writes batches into the tables and records the last sequence number, all in `tx`. With `files`
 * (complete journal segments holding exactly these batches, and older ones), DuckDB reads the
 * decisions from the files itself rather than parsing them again from a parameter; the number of
 * rows inserted is checked against the batches.
 */
export async function foldInto(tx: Tx, batches: readonly Batch[], files?: readonly string[]): Promise<void> {
  const first = batches[0];
  const last = batches[batches.length - 1];
  if (!first || !last) return;
  const expected = batches.reduce((n, b) => n + b.count, 0);
  if (files && files.length > 0) {
    const rows = await tx.all<{ Count?: string | number }>(
      `INSERT INTO routing_decisions
       SELECT ${DECISION_ROW}
       FROM (SELECT unnest(d) AS r FROM read_json(from_json(?, '["VARCHAR"]'), format = 'newline_delimited',
               columns = {seq: 'BIGINT', d: '${DECISION_STRUCT}'})
             WHERE seq BETWEEN ? AND ?)`,
      [JSON.stringify(files), first.seq, last.seq],
    );
    const inserted = Number(rows[0]?.Count ?? NaN); // DuckDB answers an INSERT with its row count
    if (inserted !== expected) throw new Error(`journal files held ${inserted} decisions for batches ${first.seq}..${last.seq}, expected ${expected}`);
  } else {
    let parts: string[] = [];
    let count = 0;
    const flushChunk = async () => {
      if (parts.length === 0) return;
      await tx.run(
        `INSERT INTO routing_decisions
         SELECT ${DECISION_ROW}
         FROM (SELECT unnest(from_json(?::JSON, '${DECISION_JSON_SHAPE}')) AS r)`,
        [`[${parts.join(",")}]`],
      );
      parts = [];
      count = 0;
    };
    for (const b of batches) {
      if (b.count > 0) {
        parts.push(b.decisions.slice(1, -1));
        count += b.count;
      }
      if (count >= INSERT_CHUNK) await flushChunk();
    }
    await flushChunk();
  }
  const lastChange = batches.findLastIndex((b) => b.config !== undefined);
  if (lastChange < 0) {
    const latest = new Map<number, StateRecord>();
    for (const b of batches) for (const st of b.states) latest.set(st.g, st);
    for (const st of latest.values()) {
      await updateRotationState(tx, st.g, { totalCalls: st.n, position: st.p, credits: st.c, randomNext: st.r });
    }
  } else {
    // Every version is recorded; the tables take the last one, whose states (complete, with their
    // member lists' signatures) the later batches then move on.
    for (const b of batches) if (b.config) await insertVersion(tx, b.config.version);
    const change = batches[lastChange]!.config!;
    await writeConfigTables(tx, change.version.config);
    const latest = new Map<number, StateRecord & { sig: string }>(change.states.map((st) => [st.g, st]));
    for (const b of batches.slice(lastChange + 1)) {
      for (const st of b.states) {
        const sig = latest.get(st.g)?.sig;
        if (sig !== undefined) latest.set(st.g, { ...st, sig });
      }
    }
    await replaceAllGroupStates(
      tx,
      [...latest.values()].map((st) => storedGroupState(st.g, st.sig, { totalCalls: st.n, position: st.p, credits: st.c, randomNext: st.r })),
    );
  }
  await tx.run("UPDATE routing_journal_checkpoint SET applied_seq = ?", [last.seq]);
}
