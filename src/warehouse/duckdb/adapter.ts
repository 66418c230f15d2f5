import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { AppError } from '../../errors.ts';
import { diskFull, isDiskFull } from '../../storage/disk.ts';
import { sameType } from '../schema.ts';
import type { AppendBatch, LogRow, NestedReads, QueryOptions, RecordFields, ResultRow, StagedRows, Warehouse } from '../types.ts';
import {
  alterSegmentSql,
  createSegmentSql,
  createViewSql,
  parseSegmentName,
  segmentName,
  type Segment,
  type SourceLayout,
  viewName,
} from './layout.ts';
import { createPromotedViewSql, promotedViewName, promotionOf } from './promoted-view.ts';
import { hiddenSelectItems, hiddenValues, isHiddenColumn, keptReads, storedColumns } from './promotion.ts';
import { loadReads, PROMOTIONS_TABLE, saveReadsSql } from './promotions-table.ts';
import { openRepairingWal, type WalRepair } from './recovery.ts';
import type { Promotion } from './rewrite.ts';
import { ResultReader, type ReadUntil } from './results.ts';
import { Reader } from './reader.ts';
import { queriesBusy, ReaderPool } from './reader-pool.ts';
import { runOnWorkers } from './background.ts';
import { stageBatch } from './staging.ts';
import { stageFittingRows } from '../staged-rows.ts';
import { duckdbType, fieldTypeFromDuckdb, quoteIdent } from './types.ts';
import { registerJsFunctions } from './functions/udfs.ts';

export interface DuckDbOptions {
  /** Database file; ':memory:' for none. */
  path: string;
  /** Folder for the NDJSON files each commit is loaded from; the only place DuckDB may read. */
  stagingDir: string;
  memoryLimit: string;
  /**
   * DuckDB's threads; unset, one per core. A fold gains nothing from a second thread (20k events:
   * the same wall time, 50-60% more CPU), so a box whose cores the HTTP side also needs ingests
   * more with fewer; one query then runs on fewer cores (docs/reliability.md).
   */
  threads?: number | undefined;
  /** A segment with at most this many rows is widened in place; a larger one gets a successor. */
  alterInPlaceMaxRows?: number;
  /** Queries run at once: one reader connection each (see reader-pool.ts). */
  readConnections?: number;
  /** Queries that may wait for a reader; past it, 429. */
  maxQueuedQueries?: number;
  /**
   * How long checkpoints may keep failing before /health names it: a query running when a table
   * changed legitimately holds one off until it ends (at most the query timeout).
   */
  checkpointProblemAfterMs?: number;
}

/** What a checkpoint did, for the log: a streak of failures begins, becomes a problem, or ends. */
export type CheckpointReport =
  | { outcome: 'failing'; reason: string; failures: number; since: Date }
  | { outcome: 'problem'; reason: string; failures: number; since: Date }
  | { outcome: 'recovered'; failures: number; since: Date };

export interface DuckDbHooks {
  /** A damaged write-ahead log tail had to be cut to open the file (see recovery.ts). */
  onWalRepaired?: (repair: WalRepair) => void;
  onCheckpoint?: (report: CheckpointReport) => void;
}

const SEGMENT_SEQUENCE_START = 1;
/** Not a segment name (see layout.ts), so discovery passes it by. */
const POSITION_TABLE = 'sawmill_journal_position';
const RETENTION_INTERVAL_MS = 5 * 60_000;
/**
 * A checkpoint recompresses the newest, partly filled row group of each table it touches. With
 * DuckDB's default 16 MB of WAL (about 18k of our events) small folds paid for that several times
 * per row group and left freed blocks behind. 64 MB (about 70k events) pays it about twice per row
 * group (122,880 rows); until a checkpoint DuckDB holds the log's rows in memory, uncompressed
 * (about 2.5 times the log), and a fold that checkpoints takes the checkpoint's time too, which is
 * what the visibility bound sees: 128 MB held 250 MB and stalled folds for longer. The idle
 * checkpoint below keeps the WAL short at rest.
 */
const CHECKPOINT_THRESHOLD = '64MB';
const IDLE_CHECKPOINT_MS = 2_000;
const MAX_IDLE_CHECKPOINT_MS = 60_000;
/** A refused checkpoint is tried again this much later, ingestion or not; a failed one too, then twice as late each time, up to MAX_IDLE_CHECKPOINT_MS. */
const CHECKPOINT_RETRY_MS = 5_000;
/** How often a warehouse DuckDB gave up on (a full disk, say) tries to open its file again. */
const REOPEN_INTERVAL_MS = 1_000;

/** DuckDB settings that shape query plans: anything running the server's SQL elsewhere (the bench) uses them too. */
export const QUERY_SETTINGS = {
  // Top-N reads its sort key first and fetches the other columns of the winners only: an
  // endpoint's `ORDER BY timestamp DESC LIMIT n` then skips decoding nested columns (80 -> 15 ms
  // at 1M). The default stops at 50 rows; endpoints return up to 1000.
  late_materialization_max_rows: '1000',
};

/** The embedded warehouse: one DuckDB file, one view per source over its segment tables. */
export class DuckDbWarehouse implements Warehouse {
  readonly engine = 'duckdb';
  private readonly layouts = new Map<string, SourceLayout>();
  /** Days to keep per source view; kept in the database as a comment on its first segment. */
  private readonly retention = new Map<string, number>();
  private retentionTimer: NodeJS.Timeout | undefined;
  private readonly results = new ResultReader();
  private idleCheckpointTimer: NodeJS.Timeout | undefined;
  private writeChain: Promise<unknown> = Promise.resolve();
  private readers = new ReaderPool([], 0);
  /** Bumped when a source's usable promotions change (translationEpoch). */
  private promotionEpoch = 0;
  private instance!: DuckDBInstance;
  private writer!: DuckDBConnection;
  /** The journal position the file holds, so a fold that did commit is not stored twice when retried. */
  private position = 0;
  /**
   * Set when DuckDB invalidated the database (a checkpoint failed on a full disk): nothing works on
   * that instance any more, so the file is opened again, at most every REOPEN_INTERVAL_MS.
   */
  private invalidated: { reason: string; triedAt: number } | undefined;
  /** Checkpoints run and failed since the start; the failures since the last one that worked. */
  private readonly checkpointCounts = { ok: 0, failed: 0 };
  private checkpointStreak: { since: number; failures: number; reason: string; reported: boolean } | undefined;
  private closed = false;
  /** DuckDB's own worker threads (its thread count less the calling one). */
  private workers = 0;
  /** When (performance.now()) the last append committed. */
  private lastAppendAt = -Infinity;
  /** Milliseconds a fold's INSERT took per row, recently: when to look whether it is done. */
  private insertMsPerRow = 0.005;

  private constructor(
    private readonly options: Required<Omit<DuckDbOptions, 'threads'>> & Pick<DuckDbOptions, 'threads'>,
    private readonly hooks: DuckDbHooks,
  ) {}

  static async open(options: DuckDbOptions, hooks: DuckDbHooks = {}): Promise<DuckDbWarehouse> {
    const settings = { alterInPlaceMaxRows: 100_000, readConnections: 4, maxQueuedQueries: 64, checkpointProblemAfterMs: 60_000, ...options };
    await mkdir(settings.stagingDir, { recursive: true, mode: 0o700 });
    const warehouse = new DuckDbWarehouse(settings, hooks);
    await warehouse.connect();
    warehouse.retentionTimer = setInterval(() => void warehouse.enforceRetention().catch(() => undefined), RETENTION_INTERVAL_MS);
    warehouse.retentionTimer.unref();
    return warehouse;
  }

  /** Opens the file and learns its layouts; works on a full disk, where nothing here needs to write. */
  private async connect(): Promise<void> {
    const instanceOptions = {
      memory_limit: this.options.memoryLimit,
      ...(this.options.threads === undefined ? {} : { threads: String(this.options.threads) }),
      storage_compatibility_version: 'v1.5.0',
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      ...QUERY_SETTINGS,
      checkpoint_threshold: CHECKPOINT_THRESHOLD,
      // DuckDB's allocator (jemalloc) gives freed memory back to the system only while it
      // allocates, unless its background thread purges: after an overload (64 senders of 1 MB
      // bodies, 512MB limit) RSS stayed at 760 MB for good with 21 MB in use by DuckDB; with the
      // thread it fell to 370 MB once the backlog was folded, and to 160 MB a minute on.
      allocator_background_threads: 'true',
    };
    this.instance = await openRepairingWal(this.options.path, instanceOptions, this.hooks.onWalRepaired);
    this.writer = await this.instance.connect();
    await lockDown(this.writer, this.options.stagingDir);
    await this.writer.run(`CREATE TABLE IF NOT EXISTS ${POSITION_TABLE} AS SELECT 0::BIGINT AS folded`);
    await this.writer.run(`CREATE TABLE IF NOT EXISTS ${PROMOTIONS_TABLE} (view VARCHAR, kind VARCHAR, path VARCHAR)`);
    this.layouts.clear();
    this.retention.clear();
    await this.discover();
    const threads = await this.writer.runAndReadAll(`SELECT current_setting('threads')`);
    this.workers = Number(threads.getRows()[0]?.[0] ?? 1) - 1;
    const folded = await this.writer.runAndReadAll(`SELECT max(folded) FROM ${POSITION_TABLE}`);
    this.position = Number(folded.getRows()[0]?.[0] ?? 0);
    const readers: Reader[] = [];
    for (let i = 0; i < this.options.readConnections; i++) readers.push(new Reader(await this.instance.connect()));
    this.readers = new ReaderPool(readers, this.options.maxQueuedQueries);
  }

  /**
   * Opens the file again if DuckDB gave up on it; throws 503 while that does not work. Queries
   * running on the old instance fail, and their readers are closed as they come back.
   */
  private async reopenIfInvalidated(): Promise<void> {
    const invalidated = this.invalidated;
    if (!invalidated) return;
    if (Date.now() - invalidated.triedAt < REOPEN_INTERVAL_MS) throw unavailable(invalidated.reason);
    invalidated.triedAt = Date.now();
    for (const reader of this.readers.takeIdle()) closeQuietly(() => reader.close());
    closeQuietly(() => this.writer.closeSync());
    closeQuietly(() => this.instance.closeSync());
    try {
      await this.connect();
      this.invalidated = undefined;
    } catch (error) {
      invalidated.reason = duckdbMessage(error);
      throw unavailable(invalidated.reason);
    }
  }

  problem(): string | undefined {
    if (this.invalidated) return `the DuckDB file is being reopened: ${this.invalidated.reason}`;
    const streak = this.checkpointStreak;
    if (!streak || Date.now() - streak.since < this.options.checkpointProblemAfterMs) return undefined;
    return (
      `checkpoints have failed since ${new Date(streak.since).toISOString()} (${streak.failures} attempts, last: ${streak.reason}): ` +
      `the write-ahead log is not folded into ${basename(this.options.path)} and backups copy it whole`
    );
  }

  /** Checkpoints since the start, by outcome (sawmill_checkpoints_total). */
  checkpoints(): { ok: number; failed: number } {
    return { ...this.checkpointCounts };
  }

  setRetention(sourceId: string, days: number | null): Promise<void> {
    return this.exclusive(async () => {
      const layout = this.layout(sourceId);
      const comment = days === null ? 'NULL' : sqlString(JSON.stringify({ retention_days: days }));
      await this.writer.run(`COMMENT ON TABLE ${quoteIdent(layout.segments[0]!.name)} IS ${comment}`);
      if (days === null) this.retention.delete(layout.view);
      else this.retention.set(layout.view, days);
      this.checkpointWhenIdle();
    });
  }

  /** Delete events older than their source's retention (also run every few minutes). */
  enforceRetention(): Promise<void> {
    return this.exclusive(async () => {
      for (const [view, days] of this.retention) {
        const layout = this.layouts.get(view);
        for (const segment of layout?.segments ?? []) {
          await this.writer.run(`DELETE FROM ${quoteIdent(segment.name)} WHERE "timestamp" < now() - to_days(CAST(${Math.floor(days)} AS BIGINT))`);
        }
      }
      if (this.retention.size > 0) this.checkpointWhenIdle();
    });
  }

  /**
   * The database file (and its write-ahead log, if a running query kept the checkpoint from
   * emptying it) copied into `dir` while the writer waits: no commit or checkpoint can change
   * either file mid-copy, and readers never write to them, so the pair is what DuckDB would open
   * after a crash at this moment. Ingestion goes on into the journal meanwhile.
   */
  backup(dir: string): Promise<string[]> {
    return this.exclusive(async () => {
      await this.checkpoint().catch((error: unknown) => {
        if (!isCheckpointRefused(error)) throw error;
      });
      const copied: string[] = [];
      for (const file of [this.options.path, `${this.options.path}.wal`]) {
        try {
          await copyFile(file, join(dir, basename(file)));
          copied.push(basename(file));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || file === this.options.path) throw error;
        }
      }
      return copied;
    });
  }

  schema(sourceId: string): RecordFields {
    return this.layout(sourceId).fields;
  }

  relation(sourceId: string): string {
    return quoteIdent(this.layout(sourceId).view);
  }

  createSource(sourceId: string): Promise<void> {
    return this.exclusive(async () => {
      const view = viewName(sourceId);
      if (this.layouts.has(view)) return;
      const segment = { name: segmentName(sourceId, SEGMENT_SEQUENCE_START), fields: new Map(), hidden: new Map(), rows: 0 };
      const layout: SourceLayout = { view, fields: new Map(), segments: [segment], reads: { records: [], leaves: [] } };
      await this.transaction([createSegmentSql(layout.segments[0]!.name, layout.fields), createViewSql(layout)]);
      this.layouts.set(view, layout);
      this.checkpointWhenIdle();
    });
  }

  dropSource(sourceId: string): Promise<void> {
    return this.exclusive(async () => {
      const layout = this.layouts.get(viewName(sourceId));
      if (!layout) return;
      const drops = layout.segments.map((segment) => `DROP TABLE IF EXISTS ${quoteIdent(segment.name)}`);
      const views = [layout.view, promotedViewName(layout.view)].map((view) => `DROP VIEW IF EXISTS ${quoteIdent(view)}`);
      await this.transaction([...views, ...drops, ...saveReadsSql(layout.view, { records: [], leaves: [] })]);
      this.layouts.delete(layout.view);
      this.checkpointWhenIdle();
    });
  }

  async committedPosition(): Promise<number> {
    return this.exclusive(async () => this.position);
  }

  /**
   * Keep typed copies of exactly `reads` for a source (promotion.ts). Stored rows get new ones in
   * the same transaction (one UPDATE per segment), so a new endpoint is fast on the data it finds;
   * copies nothing reads any more are dropped, so commits stop computing them.
   */
  async promote(sourceId: string, reads: NestedReads): Promise<void> {
    const keeps = (layout: SourceLayout) => JSON.stringify(keptReads(layout.reads, reads)) === JSON.stringify(layout.reads);
    // Asked for what it keeps (every source of an owner is, whenever an endpoint changes): no need to wait for a fold.
    if (keeps(this.layout(sourceId))) return;
    return this.exclusive(async () => {
      const current = this.layout(sourceId);
      if (keeps(current)) return;
      const kept = keptReads(current.reads, reads);
      const next = { ...current, reads: kept, segments: current.segments.map((segment) => ({ ...segment })) };
      const refill = next.segments.flatMap((segment) => (segment.rows > 0 ? refillSegment(segment, kept) : []));
      const { layout, statements } = this.planWidening(next, current.fields);
      await this.transaction([...refill, ...statements, createPromotedViewSql(layout), ...saveReadsSql(layout.view, kept)]);
      this.replaceLayout(layout);
      this.checkpointWhenIdle();
    });
  }

  translationEpoch(): number {
    return this.promotionEpoch;
  }

  /** What the query rewrite (rewrite.ts) may use for a relation this warehouse handed out, if anything. */
  promotionFor(relation: string): Promotion | undefined {
    const layout = this.layouts.get(relation.replace(/^"|"$/g, ''));
    return layout && promotionOf(layout.view, layout.reads, layout.fields);
  }

  stage(sourceId: string, rows: readonly LogRow[]): StagedRows | undefined {
    return stageFittingRows(rows, this.layout(sourceId).fields);
  }

  append(batches: ReadonlyArray<AppendBatch>, position?: number): Promise<void> {
    return this.exclusive(async () => {
      // DuckDB can report a commit as failed that is durable (its automatic checkpoint failed after it).
      if (position !== undefined && position <= this.position) return;
      const staged: string[] = [];
      const planned: SourceLayout[] = [];
      try {
        await this.writer.run('BEGIN TRANSACTION');
        for (const batch of batches) {
          const { layout, statements } = this.planWidening(this.layout(batch.sourceId), batch.schema);
          for (const statement of statements) await this.writer.run(statement);
          planned.push(layout);
          const count = batch.rows.length + (batch.staged ?? []).reduce((sum, part) => sum + part.count, 0);
          if (count === 0) continue;
          const { file, maxLineBytes } = await stageBatch(this.options.stagingDir, batch.rows, batch.staged ?? [], layout.fields);
          staged.push(file);
          const newest = layout.segments.at(-1)!;
          await this.insert(insertFromFileSql(newest, file, layout.fields, maxLineBytes), count);
          newest.rows += count;
        }
        if (position !== undefined) await this.writer.run(`UPDATE ${POSITION_TABLE} SET folded = greatest(folded, ${Math.floor(position)})`);
        await this.writer.run('COMMIT');
        if (position !== undefined) this.position = Math.max(this.position, position);
        for (const layout of planned) this.replaceLayout(layout);
        this.checkpointWhenIdle(this.idleAfterAppend());
      } catch (error) {
        await this.writer.run('ROLLBACK').catch(() => undefined);
        // Memory taken by queries or a full disk pass; the pipeline retries these rather than giving up.
        throw passingFailure(error) ?? error;
      } finally {
        await Promise.all(staged.map((file) => rm(file, { force: true })));
      }
    });
  }

  /** A fold's INSERT, run by DuckDB's workers when it has any (see background.ts). */
  private async insert(sql: string, rows: number): Promise<void> {
    const started = performance.now();
    if (this.workers === 0) await this.writer.run(sql);
    else await runOnWorkers(this.writer, sql, rows * this.insertMsPerRow);
    if (rows >= 1000) this.insertMsPerRow = 0.7 * this.insertMsPerRow + 0.3 * ((performance.now() - started) / rows);
  }

  query(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<ResultRow[]> {
    return this.withReader(options, (run) => this.results.read(run, sql, params, options.maxRows));
  }

  queryJson(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<string> {
    return this.withReader(options, (run) => this.results.readJson(run, sql, params, options.maxRows));
  }

  /**
   * The deadline covers waiting for a reader too, and the caller hears of it on time: DuckDB only
   * notices an interrupt between chunks, and a single expression can run past it. A query still
   * waiting for a reader at its deadline never ran: 503, retry. The connection goes back to the
   * pool once DuckDB has actually let go of it, so at most `readConnections` queries hold threads.
   */
  private async withReader<T>(options: QueryOptions, read: (run: ReadUntil) => Promise<T>): Promise<T> {
    const timeout = () => new AppError(504, 'query_timeout', `query cancelled after ${options.timeoutMs} ms`);
    if (this.invalidated) await this.exclusive(async () => undefined); // reopens, or answers 503 at once
    const pool = this.readers;
    const turn = pool.acquire();
    let timedOut = false;
    let running: Reader | undefined;
    let expire: (error: AppError) => void = () => undefined;
    const deadline = new Promise<never>((_resolve, reject) => (expire = reject));
    const timer = setTimeout(() => {
      timedOut = true;
      if (running) {
        running.connection.interrupt();
        expire(timeout());
      } else {
        turn.cancel();
        expire(queriesBusy(options.timeoutMs, pool));
      }
    }, options.timeoutMs);
    const run = (async () => {
      const reader = await turn.reader;
      try {
        if (timedOut) throw timeout();
        running = reader;
        return await read((text, maxRows, values) => reader.streamAndReadUntil(text, maxRows, values));
      } catch (error) {
        if (timedOut) throw timeout();
        this.noticeInvalidation(error);
        // A query's own want of memory is its answer (400); a full disk or a reopening file passes (503).
        throw unavailableForReads(error) ?? new AppError(400, 'query_failed', duckdbMessage(error));
      } finally {
        // No reader goes back to the pool holding a transaction open (see Reader.finish).
        await reader.finish().catch(() => undefined);
        // A reader of an instance given up on (see reopenIfInvalidated) is closed instead.
        if (pool === this.readers) pool.release(reader);
        else closeQuietly(() => reader.close());
      }
    })();
    run.catch(() => undefined); // once the deadline has answered, the run's own outcome has no listener
    try {
      return await Promise.race([run, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.retentionTimer);
    clearTimeout(this.idleCheckpointTimer);
    // A cancelled query DuckDB has not stopped yet can refuse the checkpoint; the WAL is replayed at the next open.
    await this.exclusive(() => this.checkpoint()).catch(() => undefined);
    for (const reader of this.readers.takeIdle()) closeQuietly(() => reader.close());
    closeQuietly(() => this.writer.closeSync());
    closeQuietly(() => this.instance.closeSync());
  }

  /**
   * How long without a commit counts as idle after this one: IDLE_CHECKPOINT_MS, or 1.5 times the
   * gap since the previous commit when commits come further apart (a quiet server folds every
   * SAWMILL_FOLD_INTERVAL_MS), at most MAX_IDLE_CHECKPOINT_MS. A checkpoint between such commits
   * would compress the table's last, partly filled row group again each time.
   */
  private idleAfterAppend(): number {
    const now = performance.now();
    const gap = now - this.lastAppendAt;
    this.lastAppendAt = now;
    if (!Number.isFinite(gap)) return IDLE_CHECKPOINT_MS;
    return Math.min(MAX_IDLE_CHECKPOINT_MS, Math.max(IDLE_CHECKPOINT_MS, 1.5 * gap));
  }

  /**
   * Checkpoint once writes pause, so a quiet server holds no WAL to replay and no unwritten row
   * groups in memory. A checkpoint that fails schedules the next one itself (see checkpoint()).
   */
  private checkpointWhenIdle(delayMs = IDLE_CHECKPOINT_MS): void {
    clearTimeout(this.idleCheckpointTimer);
    if (this.closed) return;
    this.idleCheckpointTimer = setTimeout(() => void this.exclusive(() => this.checkpoint()).catch(() => undefined), delayMs);
    this.idleCheckpointTimer.unref();
  }

  /**
   * CHECKPOINT (inside exclusive()), counted, and reported when a streak of failures begins, lasts
   * long enough to be a problem (see problem()) and ends. DuckDB refuses one while a transaction
   * that began before a committed catalog change (a retention comment, a widened or new table) is
   * still open: a query that is running, as long as it runs.
   */
  private async checkpoint(): Promise<void> {
    try {
      await this.writer.run('CHECKPOINT');
    } catch (error) {
      this.checkpointCounts.failed++;
      const reason = duckdbMessage(error);
      const streak = (this.checkpointStreak ??= { since: Date.now(), failures: 0, reason, reported: false });
      streak.failures++;
      streak.reason = reason;
      const since = new Date(streak.since);
      if (streak.failures === 1) this.hooks.onCheckpoint?.({ outcome: 'failing', reason, failures: 1, since });
      if (!streak.reported && Date.now() - streak.since >= this.options.checkpointProblemAfterMs) {
        streak.reported = true;
        this.hooks.onCheckpoint?.({ outcome: 'problem', reason, failures: streak.failures, since });
      }
      // One a running query refused is tried again soon. One that failed otherwise (for want of
      // space it also invalidates the database, and exclusive() reopens the file) is tried again
      // less and less often, until one works: on a full disk the WAL may be what fills it, and no
      // fold commits (and schedules a checkpoint) before a checkpoint frees that space.
      const retryMs = isCheckpointRefused(error) ? CHECKPOINT_RETRY_MS : Math.min(MAX_IDLE_CHECKPOINT_MS, CHECKPOINT_RETRY_MS * 2 ** (streak.failures - 1));
      this.checkpointWhenIdle(retryMs);
      throw error;
    }
    this.checkpointCounts.ok++;
    const ended = this.checkpointStreak;
    this.checkpointStreak = undefined;
    if (ended) this.hooks.onCheckpoint?.({ outcome: 'recovered', failures: ended.failures, since: new Date(ended.since) });
  }

  /** Install a committed layout; translations made before may now miss promoted columns it can use. */
  private replaceLayout(layout: SourceLayout): void {
    const before = this.layouts.get(layout.view);
    const usable = (l: SourceLayout | undefined) => JSON.stringify(l && promotionOf(l.view, l.reads, l.fields), (_key, value: unknown) => (value instanceof Set || value instanceof Map ? [...value] : value));
    if (usable(before) !== usable(layout)) this.promotionEpoch++;
    this.layouts.set(layout.view, layout);
  }

  private layout(sourceId: string): SourceLayout {
    const layout = this.layouts.get(viewName(sourceId));
    if (!layout) throw new AppError(404, 'not_found', `source ${sourceId} has no storage`);
    return layout;
  }

  /**
   * The layout after widening to `target` (and to the promoted columns its reads ask for), and
   * the DDL that gets there; the input is not modified. Promoted columns change in place only in
   * an empty segment: added to one with rows, they would be NULL where the flags say TRUE.
   */
  private planWidening(current: SourceLayout, target: RecordFields): { layout: SourceLayout; statements: string[] } {
    const segments = current.segments.map((segment) => ({ ...segment }));
    const layout: SourceLayout = { ...current, segments };
    const newest = segments.at(-1)!;
    const hidden = storedColumns(target, current.reads);
    const hiddenChanged = !sameHidden(newest.hidden, hidden);
    const promotedView = () => (layout.reads.records.length > 0 ? [createPromotedViewSql(layout)] : []);
    if (sameFields(current.fields, target) && !hiddenChanged) return { layout, statements: [] };
    layout.fields = target;
    let statements: string[];
    if (newest.rows === 0 || (!hiddenChanged && newest.rows <= this.options.alterInPlaceMaxRows)) {
      statements = [...alterSegmentSql(newest.name, newest.fields, target), ...alterHiddenSql(newest.name, newest.hidden, hidden)];
      newest.fields = target;
      newest.hidden = hidden;
    } else {
      const sequence = parseSegmentName(newest.name)!.sequence + 1;
      const next: Segment = { name: `${current.view}_${String(sequence).padStart(4, '0')}`, fields: target, hidden, rows: 0 };
      segments.push(next);
      statements = [createSegmentSql(next.name, target, hidden)];
    }
    return { layout, statements: [...statements, createViewSql(layout), ...promotedView()] };
  }

  private async discover(): Promise<void> {
    const tables = await this.writer.runAndReadAll(`SELECT table_name, comment FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name`);
    for (const [table, comment] of tables.getRows()) {
      const parsed = parseSegmentName(String(table));
      if (!parsed) continue;
      const days = retentionFromComment(comment);
      if (days !== undefined) this.retention.set(parsed.view, days);
      const segment = await this.describeSegment(String(table));
      const layout: SourceLayout = this.layouts.get(parsed.view) ?? { view: parsed.view, segments: [], fields: new Map(), reads: { records: [], leaves: [] } };
      layout.segments.push(segment);
      layout.fields = segment.fields; // segments come in order and only ever widen
      this.layouts.set(parsed.view, layout);
    }
    for (const [view, reads] of await loadReads(this.writer)) {
      const layout = this.layouts.get(view);
      if (layout) layout.reads = reads;
    }
    // A file written by an older version may hold promoted views with fewer columns than the rewrite now reads.
    // On a full disk they stay as they are: starting matters more, and the next start writes them.
    const promoted = [...this.layouts.values()].filter((layout) => layout.reads.records.length > 0);
    if (promoted.length > 0) {
      await this.transaction(promoted.map(createPromotedViewSql)).catch((error: unknown) => {
        if (!isDiskFull(error)) throw error;
      });
    }
  }

  private async describeSegment(name: string): Promise<Segment> {
    const shape = await this.writer.runAndReadAll(`SELECT * FROM ${quoteIdent(name)} LIMIT 0`);
    const columns = shape.columnNames().map((column, i) => [column, fieldTypeFromDuckdb(shape.columnTypes()[i]!)] as const).slice(3);
    const fields = new Map(columns.filter(([column]) => !isHiddenColumn(column)));
    const hidden = new Map(columns.filter(([column]) => isHiddenColumn(column)).map(([column, type]) => [column, duckdbType(type)]));
    const count = await this.writer.runAndReadAll(`SELECT count(*) FROM ${quoteIdent(name)}`);
    return { name, fields, hidden, rows: Number(count.getRows()[0]![0]) };
  }

  private async transaction(statements: string[]): Promise<void> {
    await this.writer.run('BEGIN TRANSACTION');
    try {
      for (const statement of statements) await this.writer.run(statement);
      await this.writer.run('COMMIT');
    } catch (error) {
      await this.writer.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * Run writes one at a time: one writer connection, and layouts change only between commits.
   * A database DuckDB gave up on is opened again first.
   */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.writeChain.then(async () => {
      await this.reopenIfInvalidated();
      try {
        return await work();
      } catch (error) {
        this.noticeInvalidation(error);
        throw error;
      }
    });
    this.writeChain = result.catch(() => undefined);
    return result;
  }

  private noticeInvalidation(error: unknown): void {
    if (this.invalidated || !INVALIDATED.test(duckdbMessage(error))) return;
    this.invalidated = { reason: duckdbMessage(error), triedAt: Date.now() };
  }


}

/**
 * Make a segment with rows store the promoted columns `reads` asks for: those it lacks added and
 * computed from its own nested columns, those nothing asks for dropped; updates `segment.hidden`.
 * Columns it keeps keep their type (the promoted view casts them).
 */
function refillSegment(segment: Segment, reads: NestedReads): string[] {
  const wanted = storedColumns(segment.fields, reads);
  const missing = [...wanted].filter(([name]) => !segment.hidden.has(name));
  const unread = [...segment.hidden.keys()].filter((name) => !wanted.has(name));
  segment.hidden = new Map([...[...segment.hidden].filter(([name]) => wanted.has(name)), ...missing]);
  const table = quoteIdent(segment.name);
  const adds = missing.map(([name, type]) => `ALTER TABLE ${table} ADD COLUMN ${quoteIdent(name)} ${type}`);
  const values = hiddenValues(segment.fields, new Map(missing)).map(({ name, sql }) => `${quoteIdent(name)} = ${sql}`);
  const drops = unread.map((name) => `ALTER TABLE ${table} DROP COLUMN ${quoteIdent(name)}`);
  // Every ALTER before the UPDATE: DuckDB cannot commit a table altered after its rows changed.
  return [...drops, ...adds, ...(values.length > 0 ? [`UPDATE ${table} SET ${values.join(', ')}`] : [])];
}

function sameHidden(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([name, type]) => b.get(name) === type);
}

/** Make an empty segment's hidden columns `target`. */
function alterHiddenSql(segment: string, current: ReadonlyMap<string, string>, target: ReadonlyMap<string, string>): string[] {
  const table = quoteIdent(segment);
  const drops = [...current].filter(([name, type]) => target.get(name) !== type).map(([name]) => `ALTER TABLE ${table} DROP COLUMN ${quoteIdent(name)}`);
  const adds = [...target].filter(([name, type]) => current.get(name) !== type).map(([name, type]) => `ALTER TABLE ${table} ADD COLUMN ${quoteIdent(name)} ${type}`);
  return [...drops, ...adds];
}

function sameFields(a: RecordFields, b: RecordFields): boolean {
  return sameType({ kind: 'record', fields: a }, { kind: 'record', fields: b });
}

function retentionFromComment(comment: unknown): number | undefined {
  if (typeof comment !== 'string' || !comment.startsWith('{')) return undefined;
  try {
    const days = (JSON.parse(comment) as { retention_days?: unknown }).retention_days;
    return typeof days === 'number' ? days : undefined;
  } catch {
    return undefined;
  }
}

const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * read_json allocates buffers of twice `maximum_object_size` inside DuckDB's memory limit, so a
 * fixed 64 MB made every commit need 128 MB and a 128 MB limit refused all ingestion. Sized to
 * the batch's longest line instead (1 MB at least).
 */
function insertFromFileSql(segment: Segment, file: string, fields: RecordFields, maxLineBytes: number): string {
  const columns = [`'id': 'VARCHAR'`, `'timestamp': 'BIGINT'`, `'event_message': 'VARCHAR'`];
  for (const [name, type] of fields) columns.push(`${sqlString(name)}: ${sqlString(duckdbType(type))}`);
  // Promoted columns are computed here by DuckDB from the parsed nested values (promotion.ts).
  const promoted = hiddenSelectItems(fields, segment.hidden).map((item) => `, ${item}`).join('');
  return (
    `INSERT INTO ${quoteIdent(segment.name)} BY NAME ` +
    `SELECT * REPLACE (make_timestamp("timestamp")::TIMESTAMPTZ AS "timestamp")${promoted} ` +
    `FROM read_json(${sqlString(file)}, format = 'newline_delimited', columns = {${columns.join(', ')}}, maximum_object_size = ${Math.max(1 << 20, maxLineBytes + 1)})`
  );
}

/** Settings that hold for every connection: UTC time, no reach outside the staging folder; the functions written in JavaScript. */
async function lockDown(connection: DuckDBConnection, stagingDir: string): Promise<void> {
  registerJsFunctions(connection);
  await connection.run(`SET GLOBAL TimeZone = 'UTC'`);
  await connection.run(`SET GLOBAL allowed_directories = [${sqlString(stagingDir.endsWith('/') ? stagingDir : `${stagingDir}/`)}]`);
  await connection.run(`SET GLOBAL enable_external_access = false`);
  await connection.run(`SET GLOBAL lock_configuration = true`);
}

/** DuckDB refused a checkpoint because of concurrent transactions; nothing is wrong with the files. */
function isCheckpointRefused(error: unknown): boolean {
  return /^TransactionContext Error: Cannot CHECKPOINT/.test(duckdbMessage(error));
}

/** DuckDB's words when it stops using a database after a fatal error (a checkpoint on a full disk). */
const INVALIDATED = /^FATAL Error|database has been invalidated/;

/**
 * Failures that pass (memory taken by queries, a full disk, a database being reopened): 503, so
 * the pipeline keeps the events and tries again, and callers are told to retry.
 */
function passingFailure(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error.status === 503 ? error : undefined;
  if (isDiskFull(error)) return diskFull('stored events wait in the journal');
  const message = duckdbMessage(error);
  if (INVALIDATED.test(message)) return unavailable(message);
  if (/^(Out of Memory|IO) Error/.test(message)) return new AppError(503, 'storage_busy', message, { retryAfterSeconds: 1 });
  return undefined;
}

function unavailableForReads(error: unknown): AppError | undefined {
  if (isDiskFull(error)) return diskFull('queries that spill to disk cannot run');
  return INVALIDATED.test(duckdbMessage(error)) ? unavailable(duckdbMessage(error)) : undefined;
}

const unavailable = (reason: string) =>
  new AppError(503, 'storage_unavailable', `the warehouse is reopening its file after an error (${reason}); retry shortly`, { retryAfterSeconds: 2 });

function closeQuietly(close: () => void): void {
  try {
    close();
  } catch {
    // already closed with its instance
  }
}

function duckdbMessage(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
