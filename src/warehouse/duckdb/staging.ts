import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { writeAll } from '../../storage/disk.ts';
import { extendsFields } from '../schema.ts';
import { rowsOfStaged, stagedLine } from '../staged-rows.ts';
import type { LogRow, RecordFields, StagedRows } from '../types.ts';

export interface StagedFile {
  file: string;
  /** Upper bound of the longest line in bytes, which sizes read_json's buffer. */
  maxLineBytes: number;
}

const NEWLINE = Buffer.from('\n');

/**
 * Write one source's part of a commit as NDJSON in `dir` for read_json: `rows` serialised now,
 * then the lines staged when they were acknowledged. Those are written as they are while the
 * columns they were shaped for still hold them; lines shaped for a schema a scalar has widened
 * since (or of unknown schema, read back from the journal) are shaped again first.
 */
export async function stageBatch(dir: string, rows: readonly LogRow[], staged: readonly StagedRows[], fields: RecordFields): Promise<StagedFile> {
  const pieces: Buffer[] = [];
  let maxLineBytes = 0;
  const add = (part: StagedRows) => {
    if (part.count === 0) return;
    if (pieces.length > 0) pieces.push(NEWLINE);
    pieces.push(part.lines);
    maxLineBytes = Math.max(maxLineBytes, part.maxLineBytes);
  };
  if (rows.length > 0) add(serialise(rows, fields));
  for (const part of staged) add(part.fields && extendsFields(part.fields, fields) ? part : serialise(rowsOfStaged(part), fields));
  const file = join(dir, `${randomUUID()}.ndjson`);
  const handle = await open(file, 'w');
  try {
    await writeAll(handle, pieces, 0); // a short file would load fewer events without an error
  } finally {
    await handle.close();
  }
  return { file, maxLineBytes };
}

function serialise(rows: readonly LogRow[], fields: RecordFields): StagedRows {
  let longest = 0;
  const lines = rows.map((row) => {
    const line = stagedLine(row, fields);
    longest = Math.max(longest, line.length);
    return line;
  });
  // A UTF-16 code unit takes at most 3 bytes in UTF-8.
  return { lines: Buffer.from(lines.join('\n')), count: rows.length, maxLineBytes: longest * 3, fields };
}
