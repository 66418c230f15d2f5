/**
 * How many DuckDB queries run at once, and how many may wait for a turn.
 *
 * @duckdb/node-api runs every call (prepare, execute, fetch a chunk) as a Node-API async work
 * item, on libuv's threadpool: a query holds one of its threads for as long as DuckDB computes.
 * The journal's writes and fsyncs, the fold into DuckDB and every other file operation need the
 * same threads. With 4 readers and libuv's default 4 threads, four slow queries stalled every
 * ingestion acknowledgement until they timed out (issue 17). So queries may hold at most the
 * threads left after RESERVED_THREADS, and more threads are asked for at start (every entry
 * point starts Node with UV_THREADPOOL_SIZE=16: bin/threadpool.cjs).
 */
import { AppError } from '../../errors.ts';
import type { Reader } from './reader.ts';

/**
 * libuv threads kept from queries: the fold (the writer connection), a journal write or fsync,
 * the journal preparing its next file, and one for the other file operations.
 */
export const RESERVED_THREADS = 4;

/** libuv's threadpool size as libuv read it when the pool started: UV_THREADPOOL_SIZE, 4 unset, 1..1024. */
export function libuvThreadpoolSize(env: Record<string, string | undefined> = process.env): number {
  const asked = Number.parseInt(env.UV_THREADPOOL_SIZE ?? '', 10);
  return Number.isFinite(asked) && asked > 0 ? Math.min(asked, 1024) : 4;
}

/** Reader connections: as many as asked, but never more than the threadpool leaves to queries (at least one). */
export function queryConnections(asked: number, threadpoolSize: number): number {
  return Math.max(1, Math.min(asked, threadpoolSize - RESERVED_THREADS));
}

export interface Turn {
  reader: Promise<Reader>;
  /** Give up waiting (the query's deadline passed); a no-op once the reader was handed over. */
  cancel(): void;
}

export class ReaderPool {
  private readonly idle: Reader[];
  /** Insertion-ordered: first come, first served. */
  private readonly waiting = new Set<(reader: Reader) => void>();

  constructor(
    readers: Reader[],
    private readonly maxWaiting: number,
  ) {
    this.idle = [...readers];
    this.size = readers.length;
  }

  readonly size: number;

  get running(): number {
    return this.size - this.idle.length;
  }

  get queued(): number {
    return this.waiting.size;
  }

  /** A reader now, or a place in the queue; 429 when the queue is full. */
  acquire(): Turn {
    const idle = this.idle.pop();
    if (idle) return { reader: Promise.resolve(idle), cancel: () => undefined };
    if (this.waiting.size >= this.maxWaiting) {
      throw new AppError(
        429,
        'query_queue_full',
        `${this.running} queries are running and ${this.waiting.size} waiting, the most allowed (SAWMILL_QUERY_CONCURRENCY, SAWMILL_QUERY_QUEUE); retry shortly`,
        { retryAfterSeconds: 1 },
      );
    }
    let handOver!: (reader: Reader) => void;
    const reader = new Promise<Reader>((resolve) => (handOver = resolve));
    this.waiting.add(handOver);
    return { reader, cancel: () => this.waiting.delete(handOver) };
  }

  release(reader: Reader): void {
    const next = this.waiting.values().next();
    if (next.done) return void this.idle.push(reader);
    this.waiting.delete(next.value);
    next.value(reader);
  }

  /** The readers not in use; those still running close when the process ends. */
  takeIdle(): Reader[] {
    return this.idle.splice(0);
  }
}

/** The deadline passed before a reader came free: the query never ran. */
export function queriesBusy(timeoutMs: number, pool: ReaderPool): AppError {
  return new AppError(
    503,
    'queries_busy',
    `no query slot came free within ${timeoutMs} ms (${pool.running} queries running, ${pool.queued} waiting); retry shortly`,
    { retryAfterSeconds: 1 },
  );
}
