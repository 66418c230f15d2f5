import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { SqlDialect } from '../../sql/dialect.ts';
import { type CheckpointReport, type DuckDbHooks, DuckDbWarehouse } from './adapter.ts';
import { libuvThreadpoolSize, queryConnections, RESERVED_THREADS } from './reader-pool.ts';
import { promotingDialect } from './rewrite.ts';

export interface OpenHooks extends Pick<DuckDbHooks, 'onCheckpoint'> {
  /** Where what opening it found is said: the service's log, or the CLI's standard error. */
  log: { warn(message: string): void };
}

/** The embedded warehouse in the data dir, and its SQL printer. */
export async function openDuckDb(config: Config, { log, ...hooks }: OpenHooks): Promise<{ warehouse: DuckDbWarehouse; dialect: SqlDialect }> {
  const stagingDir = join(config.dataDir, 'staging');
  const threadpool = libuvThreadpoolSize();
  const readConnections = queryConnections(config.queryConcurrency, threadpool);
  if (readConnections < config.queryConcurrency) {
    log.warn(
      `UV_THREADPOOL_SIZE=${threadpool} leaves room for ${readConnections} concurrent DuckDB ${readConnections === 1 ? 'query' : 'queries'} (SAWMILL_QUERY_CONCURRENCY=${config.queryConcurrency}); ` +
        `start Node with UV_THREADPOOL_SIZE=${config.queryConcurrency + RESERVED_THREADS} or more, as npm start, sawmill serve and the image do`,
    );
  }
  const warehouse = await DuckDbWarehouse.open(
    {
      path: join(config.dataDir, 'sawmill.duckdb'),
      stagingDir,
      memoryLimit: config.memoryLimit,
      threads: config.duckdbThreads,
      readConnections,
      maxQueuedQueries: config.queryQueue,
      // A query may hold checkpoints off for as long as it runs; a problem is what outlasts that.
      checkpointProblemAfterMs: Math.max(60_000, 2 * config.queryTimeoutMs),
    },
    {
      ...hooks,
      onWalRepaired: (repair) =>
        log.warn(
          `write-ahead log ${repair.wal} had a damaged tail (${repair.reason}); cut from ${repair.sizeBefore} to ${repair.sizeAfter} bytes, original kept as ${repair.savedAs}`,
        ),
    },
  );
  // Staged commit files left by a crash were never acknowledged: nothing in them is owed. Cleared
  // only once the file is ours: before, they could be the files of another instance's fold.
  for (const name of await readdir(stagingDir)) await rm(join(stagingDir, name), { recursive: true, force: true });
  // Queries over promoted columns are rewritten against the warehouse's current promotions.
  return { warehouse, dialect: promotingDialect((relation) => warehouse.promotionFor(relation)) };
}

/** The log line for a checkpoint report: a streak of failures beginning, lasting, ending. */
export function checkpointLogLine(report: CheckpointReport): { level: 'info' | 'warn' | 'error'; message: string } {
  const since = report.since.toISOString();
  switch (report.outcome) {
    case 'failing':
      return { level: 'warn', message: `DuckDB checkpoint failed (${report.reason}); tried again every few seconds` };
    case 'problem':
      return { level: 'error', message: `DuckDB checkpoints have failed since ${since} (${report.failures} attempts, last: ${report.reason}): the write-ahead log is not folded into the database file` };
    case 'recovered':
      return { level: 'info', message: `DuckDB checkpoint succeeded after ${report.failures} failed ${report.failures === 1 ? 'attempt' : 'attempts'} since ${since}` };
  }
}
