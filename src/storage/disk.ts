import { writevSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { AppError } from '../errors.ts';

/**
 * Writes every byte of `buffers` at `position`. On a nearly full file system a write can store
 * fewer bytes than asked without failing (seen on tmpfs: `writev` returned short and the fsync
 * after it succeeded), so what is left is written again until it is all there or the system
 * says why not.
 */
export async function writeAll(handle: FileHandle, buffers: readonly Buffer[], position: number): Promise<void> {
  let remaining = buffers.filter((buffer) => buffer.length > 0);
  let at = position;
  while (remaining.length > 0) {
    const { bytesWritten } = await handle.writev(remaining, at);
    if (bytesWritten === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write stored nothing'), { code: 'ENOSPC' });
    at += bytesWritten;
    remaining = skipBytes(remaining, bytesWritten);
  }
}

/** `writeAll` on the calling thread, for a few bytes to a file written to rarely (see Journal). */
export function writeAllSync(fd: number, buffers: readonly Buffer[], position: number): void {
  let remaining = buffers.filter((buffer) => buffer.length > 0);
  let at = position;
  while (remaining.length > 0) {
    const bytesWritten = writevSync(fd, remaining, at);
    if (bytesWritten === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write stored nothing'), { code: 'ENOSPC' });
    at += bytesWritten;
    remaining = skipBytes(remaining, bytesWritten);
  }
}

function skipBytes(buffers: readonly Buffer[], count: number): Buffer[] {
  let left = count;
  const rest: Buffer[] = [];
  for (const buffer of buffers) {
    if (left >= buffer.length) left -= buffer.length;
    else {
      rest.push(left > 0 ? buffer.subarray(left) : buffer);
      left = 0;
    }
  }
  return rest;
}

const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
const DISK_FULL_MESSAGE = /No space left on device|Disk quota exceeded/i;

/** The file system refused a write for want of space (Node's codes, or DuckDB's message for them). */
export function isDiskFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && DISK_FULL_CODES.has(code)) || DISK_FULL_MESSAGE.test(error.message);
}

/** A full disk, as clients are told: 503 with Retry-After, which the Logflare clients, Vector and exporters retry. */
export const diskFull = (what: string) =>
  new AppError(503, 'disk_full', `the disk is full: ${what}; retry once space is freed`, { retryAfterSeconds: 5 });
