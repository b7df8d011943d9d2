/**
 * The simulation on a worker thread (`simulateInWorker`): the worker draws the rows and hands each
 * full buffer to the calling thread, which appends it to DuckDB while the worker draws the next. On
 * one thread the two took turns: at 10 M attempts, about 3 s of drawing and 1.3 s of appending made
 * a 4.1–5.1 s phase, which takes 3.2–4.0 s this way (docs/benchmarks.md). The rows, their order and
 * the counts are the same either way, since the same Simulation makes the same draws in the same
 * order, and each staging table's buffers arrive in the order they were filled.
 *
 * At most MAX_BUFFERS_IN_FLIGHT buffers are on their way at once: past that the worker waits for the
 * appender, so a slow disk holds the simulation back instead of queueing its rows in memory.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { buildWorld } from "./world";
import { rowBuffers, type StageName } from "./rows";
import { Simulation, simulateDays, type SimulationCounts } from "./simulation";

/**
 * Rows per posted buffer: sixteen data chunks, so that the messages' own cost (a post, an event, a
 * fresh buffer) is paid per 32,768 rows rather than per 2,048.
 */
const WORKER_BUFFER_ROWS = 16 * 2048;
/** Buffers posted and not yet appended, at most (≈ 1.2 MB each for attempts). */
export const MAX_BUFFERS_IN_FLIGHT = 8;

interface SimulationInput {
  seed: number;
  endDay: number;
  startDay: number;
  volumes: Int32Array;
  totalCustomers: number;
  /** One Int32: buffers in flight. */
  inFlight: SharedArrayBuffer;
}

type FromWorker =
  | { kind: "rows"; stage: StageName; columns: Int32Array[]; rows: number }
  | { kind: "progress"; message: string }
  | { kind: "done"; counts: SimulationCounts };

/**
 * Runs the simulation on a worker thread; `append` receives each staging table's full buffers, in
 * order, on this thread. Rejects with the worker's error, or with `append`'s (the worker is then
 * stopped). `inFlight` holds the count of buffers posted and not yet appended (a test reads it).
 */
export function simulateInWorker(
  input: Omit<SimulationInput, "inFlight">,
  append: (stage: StageName, columns: Int32Array[], rows: number) => void,
  progress: (msg: string) => void,
  inFlight = new SharedArrayBuffer(4),
): Promise<SimulationCounts> {
  const count = new Int32Array(inFlight);
  // A JavaScript entry point that loads this TypeScript module through tsx, whatever runs the caller
  // (tsx, vitest or plain node with tsx's loader).
  const worker = new Worker(new URL("./simulation-worker-entry.mjs", import.meta.url), { workerData: { ...input, inFlight } satisfies SimulationInput });
  return new Promise<SimulationCounts>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    worker.on("message", (msg: FromWorker) => {
      if (settled) return;
      try {
        if (msg.kind === "rows") {
          append(msg.stage, msg.columns, msg.rows);
          Atomics.sub(count, 0, 1);
          Atomics.notify(count, 0);
        } else if (msg.kind === "progress") {
          progress(msg.message);
        } else {
          settled = true;
          resolve(msg.counts);
        }
      } catch (err) {
        fail(err);
      }
    });
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the simulation's worker stopped (exit code ${code}) before it finished`)));
  });
}

/** The worker's side: draws every day and posts the buffers as they fill, then the counts. */
async function runInWorker(input: SimulationInput, port: NonNullable<typeof parentPort>): Promise<void> {
  const count = new Int32Array(input.inFlight);
  const post = (msg: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);
  const stages = rowBuffers(WORKER_BUFFER_ROWS, (stage, columns, rows) => {
    let n = Atomics.add(count, 0, 1) + 1;
    post({ kind: "rows", stage, columns, rows }, columns.map((c) => c.buffer as ArrayBuffer));
    while (n >= MAX_BUFFERS_IN_FLIGHT) {
      Atomics.wait(count, 0, n);
      n = Atomics.load(count, 0);
    }
  });
  const sim = new Simulation(buildWorld(), stages, input.seed, input.endDay, input.totalCustomers);
  const counts = await simulateDays(sim, input.startDay, input.volumes, (message) => post({ kind: "progress", message }));
  for (const s of Object.values(stages)) s.flush();
  post({ kind: "done", counts });
}

if (!isMainThread && parentPort && (workerData as { inFlight?: unknown } | null)?.inFlight instanceof SharedArrayBuffer) {
  await runInWorker(workerData as SimulationInput, parentPort);
}
