/**
 * Opening a DuckDB file whose write-ahead log ends in a torn record.
 *
 * Measured with DuckDB 1.5 (docs/reliability.md, "Torn write-ahead log"):
 * - A WAL cut short anywhere (a crash mid-append) opens fine: DuckDB replays every complete
 *   commit and ignores the partial one at the end.
 * - A WAL whose tail holds a well-formed entry header over bad bytes does not open: the file was
 *   extended but the data never reached the disk (zero-filled blocks after a power cut), or a
 *   block was damaged. DuckDB stops with "Corrupt WAL file: entry at byte position N computed
 *   checksum ... does not match stored checksum ...", and the service could not start.
 *
 * Each WAL entry is an 8-byte size, an 8-byte checksum, then the payload; N is where the payload
 * starts. Cutting the file just before that entry turns the damage into the torn tail DuckDB
 * already handles: every commit before it is replayed, and the damaged entry (and anything after
 * it) is left out. A commit is acknowledged only after its WAL fsync returns, so damage left by a
 * crash lies past the last acknowledged commit. The original file is kept beside the database
 * first, because damage in the middle (a bad disk) would also cut the commits that follow it.
 */
import { copyFile, open, stat } from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';

export interface WalRepair {
  /** The write-ahead log that was cut. */
  wal: string;
  /** Where its original bytes were kept. */
  savedAs: string;
  sizeBefore: number;
  sizeAfter: number;
  /** DuckDB's complaint. */
  reason: string;
}

const ENTRY_HEADER_BYTES = 16;
const CORRUPT_ENTRY = /Corrupt WAL file: entry at byte position (\d+)/;
/** Each repair removes at least one entry; more than a few in a row means something else is wrong. */
const MAX_REPAIRS = 8;

export async function openRepairingWal(
  path: string,
  options: Record<string, string>,
  onRepair: (repair: WalRepair) => void = () => undefined,
): Promise<DuckDBInstance> {
  for (let repairs = 0; ; repairs++) {
    try {
      return await DuckDBInstance.create(path, options);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const position = CORRUPT_ENTRY.exec(reason)?.[1];
      if (position === undefined || path === ':memory:' || repairs >= MAX_REPAIRS) throw error;
      const repair = await cutWal(`${path}.wal`, Number(position) - ENTRY_HEADER_BYTES, reason);
      if (!repair) throw error;
      onRepair(repair);
    }
  }
}

/** Cut `wal` to `keep` bytes after saving a copy; undefined when that would change nothing. */
async function cutWal(wal: string, keep: number, reason: string): Promise<WalRepair | undefined> {
  const sizeBefore = (await stat(wal)).size;
  const sizeAfter = Math.max(0, keep);
  if (sizeAfter >= sizeBefore) return undefined;
  const savedAs = `${wal}.damaged-${new Date().toISOString().replaceAll(':', '-')}`;
  await copyFile(wal, savedAs);
  const file = await open(wal, 'r+');
  try {
    await file.truncate(sizeAfter);
    await file.sync();
  } finally {
    await file.close();
  }
  return { wal, savedAs, sizeBefore, sizeAfter, reason: reason.split('\n')[0]! };
}
