import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors.ts';
import { diskFull, isDiskFull } from '../storage/disk.ts';
import { planRows } from '../warehouse/schema.ts';
import { rowsOfStaged } from '../warehouse/staged-rows.ts';
import type { AppendBatch, LogRow, RecordFields, StagedRows, Warehouse } from '../warehouse/types.ts';
import { recordEvents, type Journal, type JournalEvents, type JournalRecord } from './journal.ts';

export interface WriterOptions {
  /** Events acknowledged or waiting but not yet in the warehouse beyond which new requests are refused with 429. */
  maxQueuedEvents: number;
  /** How long the first request of a commit waits for others to join it. */
  commitIntervalMs: number;
  /**
   * With a journal: the longest an acknowledged event should wait before it can be read. Folds
   * start early enough that the oldest waiting event is readable within it (the fold's expected
   * duration is taken off its wait); readers do not wait for folds while the backlog is large.
   */
  visibilityMs?: number;
  /** Most events in one commit. */
  maxEventsPerCommit?: number;
  /** Most fields per source, nested ones included; new fields past it go to the overflow field. */
  maxFieldsPerSource?: number;
  /**
   * Acknowledge once events are in this journal and fold them into the warehouse afterwards (the
   * warehouse must keep a committed position). Without one, a request waits for its warehouse commit.
   */
  journal?: Journal;
  /** Told about commits that failed, with the cause the callers are not shown. */
  onCommitError?: (error: unknown, sourceIds: string[]) => void;
  /** Told where an acknowledged record the warehouse kept refusing was set aside. */
  onQuarantined?: (path: string, sourceId: string) => void;
  /** Told of each commit into the warehouse that succeeded: its events and how long it took. */
  onFolded?: (events: number, seconds: number) => void;
  /** Told, per journaled request, how long its events took from acknowledgement to being readable. */
  onVisible?: (lagSeconds: number) => void;
}

export const DEFAULT_MAX_FIELDS_PER_SOURCE = 1000;
/** The most events a fold takes, by default: large folds cost DuckDB less per event (docs/reliability.md). */
export const DEFAULT_MAX_EVENTS_PER_FOLD = 100_000;
/**
 * A reader waits for the events acknowledged before it (read-your-writes) only while at most this
 * many are still to be folded, which one small fold stores in a fraction of a second. Past it the
 * writer is busy with large folds, and a reader forcing small ones would cost every sender: it
 * reads what is folded, and the rest follows within the visibility bound.
 */
export const READER_WAIT_MAX_EVENTS = 10_000;
/**
 * Below this arrival rate (events a second, over the visibility bound) a server is quiet: folds
 * may wait the fold interval for company. Above it the load is sustained, and folds keep to the
 * visibility bound: 20 single events a second is quiet, the 2,500 a starved server took in the
 * bench is load (it waited for 10,000 events, 4 s, when this was the reader limit).
 */
export const QUIET_MAX_EVENTS_PER_SECOND = 100;
/** Large folds whose pace acknowledgements past the budget keep to (see recentFolds). */
const RECENT_FOLDS = 8;
/**
 * Share of SAWMILL_MAX_QUEUED_EVENTS past which acknowledgements wait for a fold to make room;
 * what requests in flight add fits in the rest, so they are not refused.
 */
const HIGH_WATER = 0.8;
/** Tries of a journal record the warehouse refuses on its own before it is set aside. */
const FOLD_ATTEMPTS = 3;
/** Folds that failed for a passing reason (a full disk) are tried again after this, doubling up to the most. */
const STALLED_RETRY_MS = { first: 250, most: 5_000 };
/** Folds refused for memory this many times in a row (about 8 s of retries) make /health say so. */
const MEMORY_STALLS_BEFORE_DEGRADED = 5;

/** 429 with Retry-After, which Vector and the Logflare clients retry. */
export const queueFull = () => new AppError(429, 'queue_full', 'ingest queue is full, retry shortly', { retryAfterSeconds: 1 });
const writeFailed = () => new AppError(503, 'write_failed', 'events could not be stored, retry');

interface Pending extends JournalRecord {
  /** Answers the request; a no-op for journaled records, which were answered already. */
  settle: (error?: unknown) => void;
  /** performance.now() when the request was acknowledged from the journal (not for recovered records). */
  acknowledgedAt?: number;
}

const acknowledged = () => undefined;

/** Told of each source's committed events; `rows()` builds them only for listeners that look. */
export type CommittedListener = (sourceId: string, count: number, rows: () => LogRow[]) => void;

/**
 * Group commit: requests that arrive while a commit is being written share the next one, so a
 * thousand concurrent senders cost one fsync. With a journal, a request is answered once its
 * events are in the journal and the commits into the warehouse (folds) happen behind it, large
 * and off the acknowledgement path; without one, once its warehouse commit is durable.
 */
export class EventWriter {
  private queue: Pending[] = [];
  private readonly committedListeners = new Set<CommittedListener>();
  /** Listeners that show events as they are committed (onCommitted with `prompt`). */
  private promptListeners = 0;
  private readonly visibilityWaiters: Array<{ seq: number; resolve: () => void }> = [];
  private queuedEvents = 0;
  private acknowledgedSeq = 0;
  private foldedSeq = 0;
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxEventsPerCommit: number;
  /**
   * Most events in the next commit: halved after a commit that failed for a passing reason, back up
   * after one that worked. A fold needs room for its staged file and DuckDB's log beside the journal
   * that still holds the same events, so on a nearly full disk only small folds can get through.
   */
  private foldLimit: number;
  private readonly maxFieldsPerSource: number;
  private readonly journal: Journal | undefined;
  /** Folds fail for a reason that passes (a full disk, the warehouse reopening): they are tried again later. */
  private stalled: { error: AppError; retries: number; records: number } | undefined;
  /** The last journal write failed: requests are refused until one succeeds. */
  private journalFailure: string | undefined;
  private stopped = false;
  /**
   * A backlog this large (FOLD_AT_ONCE_EVENTS, at most half the queue and a full fold) is folded at
   * once: waiting for company would only let the queue fill. Off (Infinity) for a queue of one event.
   */
  private readonly foldAtOnce: number;
  /** When the pending fold timer fires (performance.now()), so a nearer deadline can bring it forward. */
  private timerDue = Infinity;
  /**
   * Milliseconds a fold took per event, recently (large folds only): how early a fold must start
   * to meet the visibility bound, and the pace of acknowledgements past it.
   */
  private foldMsPerEvent = 0.03;
  /**
   * The last large folds' events and milliseconds, waits for the warehouse's checkpoints
   * included: the rate folds drain the queue at over several folds. Acknowledgements paced at
   * the recent average alone followed the quick folds between checkpoints and let the queue grow
   * by the checkpoints' share.
   */
  private readonly recentFolds: Array<{ events: number; ms: number }> = [];
  /** Acknowledgements held past the high-water mark (see paceAck). */
  private readonly roomWaiters: Array<() => void> = [];
  /** When (performance.now()) the last acknowledgement held back by `paceAck` goes out. */
  private pacedUntil = 0;

  constructor(
    private readonly warehouse: Warehouse,
    private readonly options: WriterOptions,
  ) {
    this.journal = options.journal;
    this.maxEventsPerCommit = options.maxEventsPerCommit ?? (this.journal ? DEFAULT_MAX_EVENTS_PER_FOLD : 50_000);
    this.foldLimit = this.maxEventsPerCommit;
    this.maxFieldsPerSource = options.maxFieldsPerSource ?? DEFAULT_MAX_FIELDS_PER_SOURCE;
    this.foldAtOnce = Math.min(this.maxEventsPerCommit, Math.floor(options.maxQueuedEvents / 2)) || Infinity;
  }

  /** Be told of every committed batch (live tail); returns the function that stops it. */
  onCommitted(listener: CommittedListener, options: { prompt?: boolean } = {}): () => void {
    this.committedListeners.add(listener);
    if (!options.prompt) return () => this.committedListeners.delete(listener);
    // Someone watches events arrive (a live tail): folds keep to the visibility bound even when few wait.
    this.promptListeners++;
    this.schedule();
    return () => {
      if (this.committedListeners.delete(listener)) this.promptListeners--;
    };
  }

  get backlog(): number {
    return this.queuedEvents;
  }

  /** What keeps events from being stored or folded now, in words for an operator; empty when all is well. */
  problems(): string[] {
    return [
      ...(this.journalFailure ? [`acknowledging is failing: the journal could not be written (${this.journalFailure})`] : []),
      ...(this.stalledLong() ? [`acknowledged events wait in the journal: folding them into the warehouse failed (${this.stalled!.error.message})`] : []),
    ];
  }

  /** Memory taken by a query passes in moments; a full disk or a reopening warehouse is news at once. */
  private stalledLong(): boolean {
    return this.stalled !== undefined && (this.stalled.error.code !== 'storage_busy' || this.stalled.retries >= MEMORY_STALLS_BEFORE_DEGRADED);
  }

  /** The queue is full: a request can be refused before its body is even read. */
  get saturated(): boolean {
    return this.queuedEvents >= this.options.maxQueuedEvents;
  }

  /**
   * Resolves once the events are durable; refuses at once when the queue is full. Not async:
   * staged rows are not needed past staging, and an async function would keep them (and the
   * request's whole parsed body) alive across the journal's fsync, where the young-generation
   * collections that run meanwhile would copy them and promote them to the old generation.
   */
  write(sourceId: string, events: JournalEvents): Promise<void> {
    const count = recordEvents(events);
    if (count === 0) return Promise.resolve();
    if (this.queuedEvents > 0 && this.queuedEvents + count > this.options.maxQueuedEvents) return Promise.reject(queueFull());
    this.queuedEvents += count;
    if (!this.journal) {
      return new Promise((resolve, reject) => {
        this.enqueue({ seq: 0, sourceId, rows: events.rows, settle: (error) => (error === undefined ? resolve() : reject(asAppError(error))) });
      });
    }
    const staged = events.staged ?? this.stage(sourceId, events.rows);
    return this.journaled(this.journal, sourceId, staged === events.staged ? events : { rows: [], staged });
  }

  /**
   * The schema a source's events are staged against as they are acknowledged (see
   * encode-events.ts); undefined where events are not staged (no journal, or a warehouse that
   * loads no staged lines) or the source has no storage yet.
   */
  stagingFields(sourceId: string): RecordFields | undefined {
    if (!this.journal || !this.warehouse.stage) return undefined;
    try {
      return this.warehouse.schema(sourceId);
    } catch {
      return undefined;
    }
  }

  private async journaled(journal: Journal, sourceId: string, events: JournalEvents): Promise<void> {
    let seq: number;
    try {
      seq = await journal.append(sourceId, events);
    } catch (error) {
      this.queuedEvents -= recordEvents(events);
      this.journalFailure = error instanceof Error ? error.message : String(error);
      this.options.onCommitError?.(error, [sourceId]);
      throw isDiskFull(error) ? diskFull('these events were not stored') : writeFailed();
    }
    this.journalFailure = undefined;
    this.acknowledgedSeq = Math.max(this.acknowledgedSeq, seq);
    this.enqueue({ seq, sourceId, rows: events.rows, staged: events.staged, settle: acknowledged, acknowledgedAt: performance.now() });
    if (this.queuedEvents > Math.min(this.visibilityBudget(), HIGH_WATER * this.options.maxQueuedEvents) && !this.stalled && !this.stopped) await this.paceAck(recordEvents(events));
  }

  /**
   * Events folds store in half the visibility bound, at their recent pace: the most one fold
   * takes, and the most that wait before acknowledgements are paced. An event acknowledged
   * during a fold waits for its end and for the next fold, so each may take half the bound.
   * Senders that keep as many requests in flight as they can (Vector, a load test) would
   * otherwise fill the queue in moments and be refused; their events stay durable, but their 2xx waits.
   */
  private visibilityBudget(): number {
    const visibilityMs = this.options.visibilityMs;
    return visibilityMs === undefined ? Infinity : Math.max(READER_WAIT_MAX_EVENTS, Math.floor(visibilityMs / 2 / this.foldMsPerEvent));
  }

  /**
   * Acknowledgements past the budget go out at the rate folds store events (a leaky bucket), not
   * in bursts as folds end. Past the high-water mark they wait for a fold to make room: a fold
   * that stalls (a DuckDB checkpoint takes 1-4 s under load) then holds senders back rather
   * than letting the queue fill until they are refused.
   */
  private async paceAck(events: number): Promise<void> {
    const now = performance.now();
    this.pacedUntil = Math.max(now, this.pacedUntil) + events * this.drainMsPerEvent();
    await sleep(this.pacedUntil - now);
    while (this.holdsAcks()) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /** Past HIGH_WATER of the queue's bound, unless folds are failing (their events are durable: no reason to hold them). */
  private holdsAcks(): boolean {
    return this.queuedEvents > HIGH_WATER * this.options.maxQueuedEvents && !this.stalled && !this.stopped;
  }

  private releaseHeldAcks(): void {
    if (!this.holdsAcks()) for (const resolve of this.roomWaiters.splice(0)) resolve();
  }

  private drainMsPerEvent(): number {
    let events = 0;
    let ms = 0;
    for (const fold of this.recentFolds) {
      events += fold.events;
      ms += fold.ms;
    }
    return events === 0 ? this.foldMsPerEvent : ms / events;
  }

  /**
   * Normalised events that fit their source's schema are serialised once, here, in the form the
   * warehouse loads: the journal keeps those bytes and the fold hands them over as they are. The
   * others keep their objects and are planned (widening, overflow) at the fold.
   */
  private stage(sourceId: string, rows: LogRow[]): StagedRows | undefined {
    if (!this.warehouse.stage || rows.length === 0) return undefined;
    try {
      return this.warehouse.stage(sourceId, rows);
    } catch {
      return undefined; // no storage for the source (yet): the fold decides what happens to them
    }
  }

  /** Journal records found unfolded at start-up; fold them with `flush()` before taking traffic. */
  recover(records: JournalRecord[]): void {
    for (const record of records) {
      this.queuedEvents += recordEvents(record);
      this.acknowledgedSeq = Math.max(this.acknowledgedSeq, record.seq);
      this.enqueue({ ...record, settle: acknowledged });
    }
  }

  /**
   * Resolves once every event acknowledged before the call can be read from the warehouse
   * (`?wait=visible`, backups). Folds at once rather than waiting for company. While folds are
   * failing (a full disk) it does not wait: readers get what is folded, at once.
   */
  visible(): Promise<void> {
    const seq = this.acknowledgedSeq;
    if (this.foldedSeq >= seq || this.stalled) return Promise.resolve();
    return new Promise((resolve) => {
      this.visibilityWaiters.push({ seq, resolve });
      if (this.timer && !this.writing) {
        this.clearTimer();
        void this.startCommit();
      }
    });
  }

  /**
   * What a query waits for: while few events are left to fold, those acknowledged before it
   * (folded at once, so a caller reads what it was just told is stored); under load, nothing: it
   * reads what is folded, and the rest is readable within the visibility bound.
   */
  readBarrier(): Promise<void> {
    return this.queuedEvents > READER_WAIT_MAX_EVENTS ? Promise.resolve() : this.visible();
  }

  /**
   * Commit everything queued; used on shutdown and after recovery. While folds are failing it
   * tries smaller ones down to a single record, then returns: the events are safe in the journal
   * and are folded later.
   */
  async flush(): Promise<void> {
    let tried = false;
    while (this.queue.length > 0 || this.writing) {
      // Smaller folds are tried at once; once one record alone fails, the rest waits in the journal.
      if (this.stalled && tried && !this.writing && this.stalled.records <= 1) return;
      this.clearTimer();
      tried ||= !this.writing;
      await (this.writing ?? this.startCommit());
    }
  }

  /** Journal order is fold order: the warehouse's committed position only ever moves forward. */
  private enqueue(pending: Pending): void {
    let index = this.queue.length;
    while (index > 0 && this.queue[index - 1]!.seq > pending.seq) index--;
    this.queue.splice(index, 0, pending);
    this.schedule();
  }

  /** No more folds after this (shutdown, after the last flush): what is left stays in the journal. */
  stop(): void {
    this.stopped = true;
    this.clearTimer();
    this.releaseHeldAcks();
  }

  private schedule(): void {
    if (this.writing || this.stopped) return;
    if (this.stalled) {
      if (!this.timer) this.startTimer(Math.min(STALLED_RETRY_MS.first * 2 ** (this.stalled.retries - 1), STALLED_RETRY_MS.most));
      return;
    }
    if (this.queuedEvents >= Math.min(this.foldAtOnce, this.visibilityBudget())) {
      this.clearTimer();
      void this.startCommit();
      return;
    }
    const delay = this.gatherDelay();
    if (this.timer && performance.now() + delay >= this.timerDue) return;
    this.clearTimer();
    this.startTimer(delay);
  }

  /**
   * How long the next fold may wait for company: the commit interval from the oldest waiting
   * record's acknowledgement, less whatever the fold is expected to take past the visibility bound.
   */
  private gatherDelay(): number {
    const oldest = this.queue[0]?.acknowledgedAt;
    if (oldest === undefined) return this.options.commitIntervalMs;
    const foldMs = this.foldMsPerEvent * Math.min(this.queuedEvents, this.foldLimit, this.visibilityBudget());
    const wait = this.quiet() ? this.options.commitIntervalMs : Math.min(this.options.commitIntervalMs, (this.options.visibilityMs ?? Infinity) - foldMs);
    return Math.max(0, oldest + wait - performance.now());
  }

  /**
   * Fewer events wait than a quiet rate brings in over the visibility bound (every query folds
   * them first, see readBarrier) and nobody watches them arrive: a fold may wait the whole
   * interval for company. A fold into DuckDB has a fixed CPU cost whatever its size, which a
   * trickle paid every couple of seconds for a handful of events. Once more wait (a sustained
   * rate reaches that many well within the bound), or with a live tail open, the bound governs.
   */
  private quiet(): boolean {
    const visibilityMs = this.options.visibilityMs;
    return visibilityMs !== undefined && this.queuedEvents < (QUIET_MAX_EVENTS_PER_SECOND * visibilityMs) / 1000 && this.promptListeners === 0;
  }

  private startTimer(delay: number): void {
    this.timerDue = performance.now() + delay;
    this.timer = setTimeout(() => {
      this.clearTimer();
      void this.startCommit();
    }, delay);
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = Infinity;
  }

  private startCommit(): Promise<void> {
    const taken = this.take();
    this.writing = this.commit(taken).finally(() => {
      this.writing = undefined;
      if (this.queue.length === 0) return;
      // A reader is waiting for events that arrived during this commit: no reason to wait for company.
      // (Nor when a full fold's worth arrived meanwhile: schedule() starts that one at once.)
      if (this.visibilityWaiters.length > 0) void this.startCommit();
      else this.schedule();
    });
    return this.writing;
  }

  private take(): Pending[] {
    const limit = Math.min(this.foldLimit, this.visibilityBudget());
    let count = 0;
    let index = 0;
    while (index < this.queue.length && (index === 0 || count + recordEvents(this.queue[index]!) <= limit)) {
      count += recordEvents(this.queue[index]!);
      index++;
    }
    return this.queue.splice(0, index);
  }

  private async commit(taken: Pending[]): Promise<void> {
    if (taken.length === 0) return;
    try {
      const started = performance.now();
      const batches = [...groupBySource(taken)].map(([sourceId, items]) => this.batch(sourceId, items));
      await this.warehouse.append(batches, this.journal ? taken.at(-1)!.seq : undefined);
      const events = taken.reduce((sum, pending) => sum + recordEvents(pending), 0);
      const seconds = (performance.now() - started) / 1000;
      if (events >= 1000) {
        this.foldMsPerEvent = 0.7 * this.foldMsPerEvent + 0.3 * ((seconds * 1000) / events);
        if (this.recentFolds.push({ events, ms: seconds * 1000 }) > RECENT_FOLDS) this.recentFolds.shift();
      }
      this.options.onFolded?.(events, seconds);
      this.committed(taken, batches);
    } catch (error) {
      if (this.journal && passing(error)) return this.stall(taken, passing(error)!);
      // One request's failure must not fail the requests that shared its commit (the commit was
      // rolled back, so nothing is stored twice): retry each on its own.
      if (!this.journal && taken.length === 1) return this.fail(taken[0]!, error);
      for (const [index, pending] of taken.entries()) {
        if (!this.journal) await this.commitAlone(pending);
        else {
          const stalledBy = await this.foldAlone(pending);
          if (stalledBy) return this.stall(taken.slice(index), stalledBy);
        }
      }
    } finally {
      for (const pending of taken) this.queuedEvents -= recordEvents(pending);
      this.releaseHeldAcks();
    }
  }

  private async commitAlone(pending: Pending): Promise<void> {
    try {
      const batch = this.batch(pending.sourceId, [pending]);
      await this.warehouse.append([batch]);
      this.committed([pending], [batch]);
    } catch (error) {
      this.fail(pending, error);
    }
  }

  /**
   * A journaled record was acknowledged, so it is never dropped: one the warehouse refuses for its
   * content is tried a few times, then written aside as a file for the operator. One refused for a
   * reason that passes (a full disk), or that cannot be written aside, stays in the journal: the
   * error is returned and the fold is tried again later.
   */
  private async foldAlone(pending: Pending): Promise<AppError | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        const batch = this.batch(pending.sourceId, [pending]);
        await this.warehouse.append([batch], pending.seq);
        this.committed([pending], [batch]);
        return undefined;
      } catch (error) {
        // The source was deleted after these events were acknowledged: they went with it.
        if (error instanceof AppError && error.status === 404) return void this.advance(pending.seq);
        this.options.onCommitError?.(error, [pending.sourceId]);
        if (passing(error)) return passing(error);
        if (attempt >= FOLD_ATTEMPTS) {
          return (await this.setAside(pending, error)) ? undefined : new AppError(503, 'set_aside_failed', 'refused events could not be written aside');
        }
        await sleep(100 * 10 ** (attempt - 1));
      }
    }
  }

  /** Puts records back at the head of the queue, to be folded once the warehouse takes them again. */
  private stall(items: Pending[], error: AppError): void {
    this.queue.unshift(...items);
    const events = items.reduce((sum, pending) => sum + recordEvents(pending), 0);
    this.queuedEvents += events;
    this.foldLimit = Math.max(1, Math.min(this.foldLimit, Math.floor(events / 2)));
    this.stalled = { error, retries: (this.stalled?.retries ?? 0) + 1, records: items.length };
    for (const waiter of this.visibilityWaiters.splice(0)) waiter.resolve();
    this.releaseHeldAcks();
  }

  private async setAside(pending: Pending, error: unknown): Promise<boolean> {
    try {
      const path = await this.journal!.quarantine(pending, error instanceof Error ? error.message : String(error));
      this.options.onQuarantined?.(path, pending.sourceId);
      this.advance(pending.seq);
      return true;
    } catch {
      return false;
    }
  }

  private committed(items: Pending[], batches: AppendBatch[]): void {
    this.stalled = undefined;
    this.foldLimit = Math.min(this.maxEventsPerCommit, this.foldLimit * 2);
    const now = performance.now();
    for (const pending of items) {
      pending.settle();
      if (pending.acknowledgedAt !== undefined) this.options.onVisible?.((now - pending.acknowledgedAt) / 1000);
    }
    for (const batch of batches) this.announce(batch);
    if (this.journal) this.advance(items.at(-1)!.seq);
  }

  private advance(seq: number): void {
    this.foldedSeq = Math.max(this.foldedSeq, seq);
    for (let i = this.visibilityWaiters.length - 1; i >= 0; i--) {
      if (this.visibilityWaiters[i]!.seq > this.foldedSeq) continue;
      this.visibilityWaiters[i]!.resolve();
      this.visibilityWaiters.splice(i, 1);
    }
    void this.journal!.release(this.foldedSeq).catch((error: unknown) => this.options.onCommitError?.(error, []));
  }

  private fail(pending: Pending, error: unknown): void {
    this.options.onCommitError?.(error, [pending.sourceId]);
    pending.settle(error);
  }

  private announce(batch: AppendBatch): void {
    if (this.committedListeners.size === 0) return;
    const staged = batch.staged ?? [];
    const count = batch.rows.length + staged.reduce((sum, part) => sum + part.count, 0);
    let rows: LogRow[] | undefined;
    const read = () => (rows ??= staged.length === 0 ? batch.rows : [...batch.rows, ...staged.flatMap(rowsOfStaged)]);
    for (const listener of this.committedListeners) listener(batch.sourceId, count, read);
  }

  /** Staged lines fit the schema they were staged for, which only grows: only the other rows are planned. */
  private batch(sourceId: string, items: Pending[]): AppendBatch {
    // Loops, not flatMap: a fold of single events has tens of thousands of items.
    const rows: LogRow[] = [];
    const staged: StagedRows[] = [];
    for (const pending of items) {
      for (const row of pending.rows) rows.push(row);
      if (pending.staged) staged.push(pending.staged);
    }
    const planned = planRows(this.warehouse.schema(sourceId), rows, { maxFields: this.maxFieldsPerSource });
    return { sourceId, rows: planned.rows, schema: planned.schema, ...(staged.length > 0 ? { staged } : {}) };
  }
}

/** The warehouse refused for a reason that passes (it says 503: memory, a full disk, reopening). */
function passing(error: unknown): AppError | undefined {
  return error instanceof AppError && error.status === 503 ? error : undefined;
}

function asAppError(error: unknown): AppError {
  return error instanceof AppError ? error : writeFailed();
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
