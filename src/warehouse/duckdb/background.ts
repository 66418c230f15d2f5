/**
 * A statement left to DuckDB's own worker threads while the thread that started it only looks,
 * now and then, whether it is done.
 *
 * DuckDB's calling thread busy-waits while a worker runs the query's last task (duckdb issue
 * 22178: `PendingQueryResult::ExecuteInternal` spins on NO_TASKS_AVAILABLE). A fold's INSERT …
 * read_json is one task at a time, so with two DuckDB threads one ran the fold and the other
 * spun beside it: measured in process, 20,000-event folds took 7.6–8.2 µs of CPU per event for the
 * INSERT against 4.1–5.1 on one thread, for the same wall time; on two cores the spinning thread
 * takes its core from the HTTP side. One DuckDB thread would end the spin but also halve what one
 * query can use. So the INSERT is planned and scheduled here, the worker runs it, and this side
 * checks DuckDB's state (a lock and a few fields, no task run) near the time the statement is
 * expected to end. A worker busy with a long query's task would leave the statement waiting; past
 * a few times its expected time it is finished the ordinary way, this thread joining in.
 */
import duckdb from '@duckdb/node-bindings';
import type { DuckDBConnection, DuckDBPendingResult } from '@duckdb/node-api';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long past its expected time a statement waits for a worker before the caller joins in. */
const PATIENCE = 3;
const MIN_PATIENCE_MS = 200;

export async function runOnWorkers(connection: DuckDBConnection, sql: string, expectedMs: number): Promise<void> {
  const prepared = await connection.prepare(sql);
  try {
    const pending = prepared.start();
    const handle = pendingHandle(pending);
    const started = performance.now();
    const giveUpAt = started + Math.max(MIN_PATIENCE_MS, PATIENCE * expectedMs);
    // A timer wakes the process for about 0.1 ms of CPU here: few looks, the first near the end.
    let wait = Math.max(1, 0.8 * expectedMs);
    while (running(handle) && performance.now() < giveUpAt) {
      await sleep(wait);
      wait = Math.max(1, Math.min(0.1 * expectedMs, 20));
    }
    await pending.getResult(); // the result (or DuckDB's error); runs whatever is left on this side
  } finally {
    prepared.destroySync();
  }
}

/** Whether DuckDB is still executing: an error or a finished query (which the C API also reports as an error, without a message) is not. */
function running(handle: duckdb.PendingResult): boolean {
  const state = duckdb.pending_execute_check_state(handle);
  return state === duckdb.PendingState.RESULT_NOT_READY || state === duckdb.PendingState.NO_TASKS_AVAILABLE;
}

/** @duckdb/node-api keeps the C handle private; its version is pinned exactly in package.json. */
function pendingHandle(pending: DuckDBPendingResult): duckdb.PendingResult {
  const handle = (pending as unknown as { pending_result?: duckdb.PendingResult }).pending_result;
  if (!handle) throw new Error('@duckdb/node-api changed: DuckDBPendingResult has no pending_result');
  return handle;
}
