import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { conform, fieldName } from '../schema.ts';
import type { LogRow, RecordFields } from '../types.ts';

export interface StagedFile {
  file: string;
  /** Upper bound of the longest line in bytes, which sizes read_json's buffer. */
  maxLineBytes: number;
}

/**
 * Write `rows` as NDJSON in `dir` for read_json: one object per row, fields shaped to their
 * column types (`conform`), the timestamp as microseconds.
 */
export async function stageRows(dir: string, rows: LogRow[], fields: RecordFields): Promise<StagedFile> {
  let longest = 0;
  const lines = rows.map((row) => {
    const record: Record<string, unknown> = { id: row.id, timestamp: row.timestamp, event_message: row.event_message };
    for (const [key, value] of Object.entries(row.fields)) {
      const name = fieldName(fields, key);
      const type = fields.get(name);
      if (type) record[name] = conform(value, type);
    }
    const line = JSON.stringify(record);
    longest = Math.max(longest, line.length);
    return line;
  });
  const file = join(dir, `${randomUUID()}.ndjson`);
  await writeFile(file, lines.join('\n'));
  // A UTF-16 code unit takes at most 3 bytes in UTF-8.
  return { file, maxLineBytes: longest * 3 };
}
