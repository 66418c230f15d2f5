import { AppError } from '../errors.ts';
import { planRows } from '../warehouse/schema.ts';
import type { LogRow, Warehouse } from '../warehouse/types.ts';

export interface WriterOptions {
  /** Events waiting for a commit beyond which new requests are refused with 429. */
  maxQueuedEvents: number;
  /** How long the first request of a commit waits for others to join it. */
  commitIntervalMs: number;
  /** Most events in one commit. */
  maxEventsPerCommit?: number;
  /** Most fields per source, nested ones included; new fields past it go to the overflow field. */
  maxFieldsPerSource?: number;
  /** Told about commits that failed, with the cause the callers are not shown. */
  onCommitError?: (error: unknown, sourceIds: string[]) => void;
}

export const DEFAULT_MAX_FIELDS_PER_SOURCE = 1000;

/** 429 with Retry-After, which Vector and the Logflare clients retry. */
export const queueFull = () => new AppError(429, 'queue_full', 'ingest queue is full, retry shortly', { retryAfterSeconds: 1 });

interface Pending {
  sourceId: string;
  rows: LogRow[];
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Group commit: requests that arrive while a commit is being written share the next one, so a
 * thousand concurrent senders cost one fsync, and every caller is answered only once its events
 * are durable.
 */
export class EventWriter {
  private queue: Pending[] = [];
  private readonly committedListeners = new Set<(sourceId: string, rows: LogRow[]) => void>();
  private queuedEvents = 0;
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxEventsPerCommit: number;
  private readonly maxFieldsPerSource: number;

  constructor(
    private readonly warehouse: Warehouse,
    private readonly options: WriterOptions,
  ) {
    this.maxEventsPerCommit = options.maxEventsPerCommit ?? 50_000;
    this.maxFieldsPerSource = options.maxFieldsPerSource ?? DEFAULT_MAX_FIELDS_PER_SOURCE;
  }

  /** Be told of every committed batch (live tail); returns the function that stops it. */
  onCommitted(listener: (sourceId: string, rows: LogRow[]) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  get backlog(): number {
    return this.queuedEvents;
  }

  /** The queue is full: a request can be refused before its body is even read. */
  get saturated(): boolean {
    return this.queuedEvents >= this.options.maxQueuedEvents;
  }

  /** Resolves once `rows` are committed; refuses at once when the queue is full. */
  write(sourceId: string, rows: LogRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    if (this.queuedEvents > 0 && this.queuedEvents + rows.length > this.options.maxQueuedEvents) {
      return Promise.reject(queueFull());
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ sourceId, rows, resolve, reject });
      this.queuedEvents += rows.length;
      this.schedule();
    });
  }

  /** Commit everything queued; used on shutdown. */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.writing) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      await (this.writing ?? this.startCommit());
    }
  }

  private schedule(): void {
    if (this.writing || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.startCommit();
    }, this.options.commitIntervalMs);
  }

  private startCommit(): Promise<void> {
    const taken = this.take();
    this.writing = this.commit(taken).finally(() => {
      this.writing = undefined;
      if (this.queue.length > 0) this.schedule();
    });
    return this.writing;
  }

  private take(): Pending[] {
    let count = 0;
    let index = 0;
    while (index < this.queue.length && (index === 0 || count + this.queue[index]!.rows.length <= this.maxEventsPerCommit)) {
      count += this.queue[index]!.rows.length;
      index++;
    }
    return this.queue.splice(0, index);
  }

  private async commit(taken: Pending[]): Promise<void> {
    if (taken.length === 0) return;
    const bySource = groupBySource(taken);
    try {
      const batches = [...bySource].map(([sourceId, items]) => this.batch(sourceId, items));
      await this.warehouse.append(batches);
      settle(taken);
      for (const batch of batches) this.announce(batch.sourceId, batch.rows);
    } catch (error) {
      // One request's failure must not fail the requests that shared its commit (the commit was
      // rolled back, so nothing is stored twice): retry each on its own.
      if (taken.length === 1) return this.fail(taken, error, [taken[0]!.sourceId]);
      for (const pending of taken) {
        try {
          const batch = this.batch(pending.sourceId, [pending]);
          await this.warehouse.append([batch]);
          settle([pending]);
          this.announce(pending.sourceId, batch.rows);
        } catch (retryError) {
          this.fail([pending], retryError, [pending.sourceId]);
        }
      }
    } finally {
      for (const pending of taken) this.queuedEvents -= pending.rows.length;
    }
  }

  private announce(sourceId: string, rows: LogRow[]): void {
    for (const listener of this.committedListeners) listener(sourceId, rows);
  }

  private fail(items: Pending[], error: unknown, sourceIds: string[]): void {
    this.options.onCommitError?.(error, sourceIds);
    settle(items, error);
  }

  private batch(sourceId: string, items: Pending[]) {
    const planned = planRows(this.warehouse.schema(sourceId), items.flatMap((pending) => pending.rows), { maxFields: this.maxFieldsPerSource });
    return { sourceId, rows: planned.rows, schema: planned.schema };
  }
}

function settle(items: Pending[], error?: unknown): void {
  for (const pending of items) {
    if (error === undefined) pending.resolve();
    else pending.reject(error instanceof AppError ? error : new AppError(503, 'write_failed', 'events could not be stored, retry'));
  }
}

function groupBySource(items: Pending[]): Map<string, Pending[]> {
  const groups = new Map<string, Pending[]>();
  for (const item of items) {
    const group = groups.get(item.sourceId);
    if (group) group.push(item);
    else groups.set(item.sourceId, [item]);
  }
  return groups;
}
