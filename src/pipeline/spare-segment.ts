import { open, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';

const SPARE_NAME = 'next.spare';
const ZEROS = Buffer.alloc(1 << 20);
/** A spare is written only while the file system keeps this many spares' worth free besides. */
const HEADROOM_SPARES = 4;
/** After the file system had too little room, how long before it is asked again. */
const RECHECK_MS = 10_000;

/**
 * The journal's next file, written full of zeros and fsynced ahead of time. Appending to a file
 * changes its size, so every fdatasync has to commit file system metadata as well, and on ext4
 * that commit waits for whatever other files (DuckDB's log and checkpoints) have pending: under
 * load the acknowledgement fsync took 15-100 ms. Overwriting blocks that already exist changes no
 * metadata, and fdatasync only flushes the data (measured with a 16 MB-fsync writer beside it:
 * p50 0.2-0.3 ms instead of 0.6-1.5 ms, p90 7 ms instead of 12 ms).
 *
 * The zeros are no records: the journal reads a frame of length 0 as the end (see journal.ts).
 *
 * On a nearly full disk a spare would take the room the journal and DuckDB need (and, written
 * again right after an operator freed space, fill it up at once): it is prepared only with
 * ample room to spare, given back when a journal write fails, and never left half written.
 */
export class SpareSegment {
  private preparing: Promise<void> | undefined;
  private readyPath: string | undefined;
  private tooLittleRoomAt = -Infinity;

  constructor(
    private readonly dir: string,
    private readonly bytes: number,
  ) {}

  /** A leftover from before a restart is not trusted: its zeros may not all have reached the disk. */
  static async discardLeftover(dir: string): Promise<void> {
    await rm(join(dir, SPARE_NAME), { force: true });
  }

  /** Starts preparing the next file, unless one is ready or on its way. */
  prepare(): void {
    if (this.preparing || this.readyPath || Date.now() - this.tooLittleRoomAt < RECHECK_MS) return;
    this.preparing = this.write().then(
      (path) => {
        this.readyPath = path;
        this.preparing = undefined;
      },
      () => {
        this.preparing = undefined; // a new plain file will do; tried again later
      },
    );
  }

  /** The prepared file's path, if it is ready now (never waits: a new plain file will do). */
  take(): string | undefined {
    const path = this.readyPath;
    this.readyPath = undefined;
    return path;
  }

  /** Gives the prepared file's room back to the file system (a write failed for want of it). */
  async discard(): Promise<void> {
    this.tooLittleRoomAt = Date.now();
    await this.preparing;
    this.readyPath = undefined;
    await SpareSegment.discardLeftover(this.dir).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.preparing;
    this.readyPath = undefined;
    await SpareSegment.discardLeftover(this.dir);
  }

  private async write(): Promise<string> {
    const room = await statfs(this.dir);
    if (room.bavail * room.bsize < HEADROOM_SPARES * this.bytes) {
      this.tooLittleRoomAt = Date.now();
      throw new Error('too little free space for a spare journal file');
    }
    const path = join(this.dir, SPARE_NAME);
    const handle = await open(path, 'w');
    try {
      for (let written = 0; written < this.bytes; ) {
        const { bytesWritten } = await handle.write(ZEROS, 0, Math.min(ZEROS.length, this.bytes - written), written);
        if (bytesWritten === 0) throw new Error('the spare journal file could not be written');
        written += bytesWritten;
      }
      await handle.sync();
    } catch (error) {
      this.tooLittleRoomAt = Date.now();
      await rm(path, { force: true }).catch(() => undefined);
      throw error;
    } finally {
      await handle.close();
    }
    return path;
  }
}
