import { fdatasyncSync } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { rowsOfStaged } from '../warehouse/staged-rows.ts';
import { writeAll, writeAllSync } from '../storage/disk.ts';
import { SpareSegment } from './spare-segment.ts';
import type { LogRow, StagedRows } from '../warehouse/types.ts';

/** One acknowledged request's events, numbered in the order they became durable. */
export interface JournalRecord {
  seq: number;
  sourceId: string;
  /** The events kept as objects: those that did not fit their source's schema when they came. */
  rows: LogRow[];
  /** The events as staged lines (see staged-rows.ts), which is how fitting events are kept. */
  staged?: StagedRows | undefined;
}

/** A request's events as the journal keeps them: staged lines, objects, or both. */
export type JournalEvents = Pick<JournalRecord, 'rows' | 'staged'>;

/** Events in a record, however they are kept. */
export const recordEvents = (record: JournalEvents): number => record.rows.length + (record.staged?.count ?? 0);

export interface JournalDamage {
  file: string;
  offset: number;
  savedAs: string;
}

const HEADER_BYTES = 8;
const SEGMENT_SUFFIX = '.journal';
/**
 * A file is deleted once the warehouse holds all of it, so up to this many bytes of events already
 * folded stay on disk. On a full disk that is room a checkpoint needs: with 64 MB files a 64 MB
 * disk held 31 MB of journal and 22 MB of DuckDB log for the same events, and neither could shrink.
 */
const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024;
/** Inline writes (see writesInline): a group this small, after this long without one, on a disk that syncs this fast. */
const INLINE_WRITE_MAX_BYTES = 256 * 1024;
const QUIET_MS = 20;
const INLINE_SYNC_MAX_MS = 2;

interface SegmentFile {
  path: string;
  lastSeq: number;
}

/**
 * Sawmill's own write-ahead log in front of the warehouse. A request is acknowledged once its
 * events are appended here and fsynced (one fsync for all requests that arrive meanwhile), which
 * costs well under a millisecond; the pipeline folds them into the warehouse in large commits
 * later. The warehouse stores the last folded sequence number in the same transaction as the
 * rows, so replay after a crash stores each event exactly once.
 *
 * A record on disk: u32 payload length, u32 CRC-32 of the payload, the payload. The payload is
 * either JSON `{seq, sourceId, rows}` or, for staged events, a JSON header `{seq, sourceId,
 * count, maxLineBytes, rows?}` (rows: the request's events that were not staged), a newline and
 * the staged lines as they are (so they are not copied or serialised again); JSON text never
 * holds a raw newline, which tells the two apart. A crash can only tear the last write, which was
 * never acknowledged, so reading stops at the first frame that is short or fails its checksum
 * and the file is cut there.
 */
export class Journal {
  private handle: FileHandle | undefined;
  private activeSize = 0;
  private readonly sealed: SegmentFile[] = [];
  private active: SegmentFile | undefined;
  private pending: Array<{ frame: Buffer[]; seq: number; done: (error?: Error) => void }> = [];
  private flushing: Promise<void> | undefined;
  private readonly spare: SpareSegment;
  /** A failed group could not be cut off the active file: it must be before anything else is written there. */
  private tornTail = false;
  /** The warehouse holds every record up to this one (the last `release`). */
  private releasedSeq = 0;
  /** When the last group was written (performance.now()), and how long an inline sync takes, recently. */
  private lastWriteAt = -Infinity;
  private syncMs = 0;

  private constructor(
    private readonly dir: string,
    private nextSeq: number,
    private readonly segmentBytes: number,
  ) {
    this.spare = new SpareSegment(dir, segmentBytes);
  }

  /**
   * Opens the journal in `dir` and returns the records after `foldedSeq`, which the warehouse
   * does not hold yet. `onDamage` hears of a cut that was not at the end of the newest file.
   */
  static async open(
    dir: string,
    foldedSeq: number,
    options: { segmentBytes?: number; onDamage?: (damage: JournalDamage) => void } = {},
  ): Promise<{ journal: Journal; unfolded: JournalRecord[] }> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await SpareSegment.discardLeftover(dir);
    const names = (await readdir(dir)).filter((name) => name.endsWith(SEGMENT_SUFFIX)).sort();
    const unfolded: JournalRecord[] = [];
    const files: SegmentFile[] = [];
    let lastSeq = foldedSeq;
    for (const [index, name] of names.entries()) {
      const path = join(dir, name);
      const { records, validBytes, totalBytes, zeroTail } = readSegment(await readFile(path));
      if (validBytes < totalBytes) {
        // A file ends in zeros when it was prepared ahead (spare-segment.ts) and not filled.
        const isNewestTail = index === names.length - 1;
        if (!isNewestTail && !zeroTail) {
          const savedAs = `${path}.damaged-${Date.now()}`;
          await copyFile(path, savedAs);
          options.onDamage?.({ file: path, offset: validBytes, savedAs });
        }
        await truncate(path, validBytes);
      }
      for (const record of records) if (record.seq > foldedSeq) unfolded.push(record);
      lastSeq = Math.max(lastSeq, records.at(-1)?.seq ?? 0);
      files.push({ path, lastSeq: records.at(-1)?.seq ?? 0 });
    }
    const journal = new Journal(dir, lastSeq + 1, options.segmentBytes ?? DEFAULT_SEGMENT_BYTES);
    journal.sealed.push(...files);
    return { journal, unfolded };
  }

  /** Resolves with the record's sequence number once it is on disk. */
  append(sourceId: string, events: JournalEvents): Promise<number> {
    const seq = this.nextSeq++;
    const frame = events.staged ? stagedFrame(seq, sourceId, events.staged, events.rows) : rowsFrame(seq, sourceId, events.rows);
    return new Promise((resolve, reject) => {
      this.pending.push({ frame, seq, done: (error) => (error ? reject(error) : resolve(seq)) });
      this.flushing ??= this.flush();
    });
  }

  /** Deletes the files whose records the warehouse has committed up to `foldedSeq`. */
  async release(foldedSeq: number): Promise<void> {
    this.releasedSeq = Math.max(this.releasedSeq, foldedSeq);
    while (this.sealed.length > 0 && this.sealed[0]!.lastSeq <= foldedSeq) {
      await rm(this.sealed.shift()!.path, { force: true });
    }
  }

  /** Keeps, beside the journal, a record the warehouse refused to store, so nothing acknowledged is thrown away. */
  async quarantine(record: JournalRecord, reason: string): Promise<string> {
    const dir = join(this.dir, 'rejected');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${String(record.seq).padStart(16, '0')}.json`);
    const rows = record.staged ? [...rowsOfStaged(record.staged), ...record.rows] : record.rows;
    await writeFile(path, JSON.stringify({ reason, seq: record.seq, sourceId: record.sourceId, rows }), { flush: true });
    return path;
  }

  /** Closes the files; the active one goes too when the warehouse holds all of it (a clean stop leaves no journal). */
  async close(): Promise<void> {
    await this.flushing;
    await this.handle?.close();
    this.handle = undefined;
    await this.spare.close();
    await this.release(this.releasedSeq);
    if (this.active && this.sealed.length === 0 && this.active.lastSeq <= this.releasedSeq) {
      await rm(this.active.path, { force: true });
      this.active = undefined;
    }
  }

  /** Writes everything pending in one write and one fsync, then whatever arrived meanwhile. */
  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      try {
        await this.writeGroup(group.flatMap((item) => item.frame), group[0]!.seq, group.at(-1)!.seq);
        for (const item of group) item.done();
      } catch (error) {
        for (const item of group) item.done(error instanceof Error ? error : new Error(String(error)));
      }
    }
    this.flushing = undefined;
  }

  /**
   * A group is written and synced on the calling thread when the journal is quiet (nothing
   * written for a while), the group small and the disk quick to sync. Each operation handed to
   * libuv's threadpool costs 50-100 µs of CPU on a small VM (waking a thread, and the event loop
   * again), more than the write and the sync themselves; at a trickle of single events the two
   * per request were a large part of all the CPU the server used. Under load groups follow each
   * other closely and go to the threadpool, so the event loop never waits for a disk.
   */
  private writesInline(bytes: number): boolean {
    return bytes <= INLINE_WRITE_MAX_BYTES && this.syncMs <= INLINE_SYNC_MAX_MS && performance.now() - this.lastWriteAt >= QUIET_MS;
  }

  /**
   * Every byte of a group is written and synced before any of it is acknowledged. A group that
   * fails (a full disk, say) is cut off again, so nothing follows a torn frame: the reader stops at
   * the first bad frame and would drop the acknowledged groups behind it.
   */
  private async writeGroup(frames: Buffer[], firstSeq: number, lastSeq: number): Promise<void> {
    if (!this.handle || this.activeSize >= this.segmentBytes) await this.startSegment(firstSeq);
    const handle = this.handle!;
    const sizeBefore = this.activeSize;
    if (this.tornTail) {
      await handle.truncate(sizeBefore);
      this.tornTail = false;
    }
    const bytes = frames.reduce((sum, frame) => sum + frame.length, 0);
    try {
      if (this.writesInline(bytes)) {
        const started = performance.now();
        writeAllSync(handle.fd, frames, sizeBefore);
        fdatasyncSync(handle.fd);
        this.syncMs = 0.8 * this.syncMs + 0.2 * (performance.now() - started);
      } else {
        await writeAll(handle, frames, sizeBefore);
        const started = performance.now();
        await handle.datasync();
        // Syncs on the threadpool wait their turn behind DuckDB's: a busy disk keeps inline writes off.
        this.syncMs = 0.8 * this.syncMs + 0.2 * (performance.now() - started);
      }
    } catch (error) {
      this.tornTail = true;
      await handle.truncate(sizeBefore).then(() => (this.tornTail = false), () => undefined);
      // The prepared next file is the largest thing the journal can give back to a full disk.
      await this.spare.discard();
      throw error;
    }
    this.activeSize += bytes;
    this.active!.lastSeq = lastSeq;
    this.lastWriteAt = performance.now();
    // Only a busy journal gets its next file ready: an idle one never writes a file of zeros.
    if (this.activeSize >= this.segmentBytes / 4) this.spare.prepare();
  }

  private async startSegment(firstSeq: number): Promise<void> {
    if (this.handle) {
      // The unused zeros go; if this does not reach the disk, a zero tail reads as the end anyway.
      const full = this.handle;
      this.handle = undefined;
      await full.truncate(this.activeSize).catch(() => undefined);
      await full.close();
      this.sealed.push(this.active!);
      this.tornTail = false;
    }
    const path = join(this.dir, `${String(firstSeq).padStart(16, '0')}${SEGMENT_SUFFIX}`);
    const spare = this.spare.take();
    if (spare) await rename(spare, path);
    // Written at positions, not appended: a prepared file is overwritten from its start.
    this.handle = await open(path, spare ? 'r+' : 'w');
    this.activeSize = 0;
    this.active = { path, lastSeq: firstSeq - 1 };
    // The new file's name must be durable before anything in it is acknowledged.
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}

function readSegment(bytes: Buffer): { records: JournalRecord[]; validBytes: number; totalBytes: number; zeroTail: boolean } {
  const records: JournalRecord[] = [];
  let offset = 0;
  while (offset + HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    const end = offset + HEADER_BYTES + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(offset + HEADER_BYTES, end);
    // Zeros a crash left behind pass the checksum (CRC-32 of nothing is 0) but are no record.
    if (length === 0 || crc32(payload) !== bytes.readUInt32LE(offset + 4)) break;
    records.push(parseRecord(payload));
    offset = end;
  }
  return { records, validBytes: offset, totalBytes: bytes.length, zeroTail: isZero(bytes.subarray(offset)) };
}

function rowsFrame(seq: number, sourceId: string, rows: LogRow[]): Buffer[] {
  const payload = Buffer.from(JSON.stringify({ seq, sourceId, rows }));
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32LE(payload.length, 0);
  header.writeUInt32LE(crc32(payload), 4);
  return [header, payload];
}

/** The staged lines go to disk as they are: the frame is a header (with the record's other rows) in front of them. */
function stagedFrame(seq: number, sourceId: string, staged: StagedRows, rows: LogRow[]): Buffer[] {
  const head = { seq, sourceId, count: staged.count, maxLineBytes: staged.maxLineBytes, ...(rows.length > 0 ? { rows } : {}) };
  const text = Buffer.from(`${JSON.stringify(head)}\n`);
  const header = Buffer.allocUnsafe(HEADER_BYTES + text.length);
  header.writeUInt32LE(text.length + staged.lines.length, 0);
  header.writeUInt32LE(crc32(staged.lines, crc32(text)), 4);
  text.copy(header, HEADER_BYTES);
  return [header, staged.lines];
}

function parseRecord(payload: Buffer): JournalRecord {
  const newline = payload.indexOf(0x0a);
  if (newline === -1) return JSON.parse(payload.toString('utf8')) as JournalRecord;
  const header = JSON.parse(payload.toString('utf8', 0, newline)) as { seq: number; sourceId: string; count: number; maxLineBytes: number; rows?: LogRow[] };
  const staged: StagedRows = { lines: payload.subarray(newline + 1), count: header.count, maxLineBytes: header.maxLineBytes };
  return { seq: header.seq, sourceId: header.sourceId, rows: header.rows ?? [], staged };
}

function isZero(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}
