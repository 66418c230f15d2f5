/**
 * Rows written once, at acknowledgement, in the form a warehouse loads them: one JSON object per
 * line with the fixed columns inline and every field shaped to its column (`conform`). The
 * journal keeps these lines and a fold hands them to the warehouse as they are, so an event is
 * serialised once instead of twice, and the queue holds bytes rather than object graphs.
 */
import { conform, fieldName, fitsFields } from './schema.ts';
import type { JsonValue, LogRow, RecordFields, StagedRows } from './types.ts';

/**
 * `rows` as staged lines for `fields`, or undefined when one of them does not fit (a new field, a
 * widened type): those go through `planRows` at the fold, against the schema of that moment.
 */
export function stageFittingRows(rows: readonly LogRow[], fields: RecordFields): StagedRows | undefined {
  for (const row of rows) if (!fitsFields(row.fields, fields)) return undefined;
  let text = '';
  let longest = 0;
  for (let i = 0; i < rows.length; i++) {
    const line = stagedLine(rows[i]!, fields);
    if (line.length > longest) longest = line.length;
    text += i === 0 ? line : `\n${line}`;
  }
  return stagedRows(text, rows.length, longest, fields);
}

/** Lines (`text`, `count` of them, the longest `longestLine` UTF-16 units) encoded for the journal. */
export function stagedRows(text: string, count: number, longestLine: number, fields: RecordFields): StagedRows {
  // A UTF-16 code unit takes at most 3 bytes in UTF-8.
  return { lines: slab.encode(text), count, maxLineBytes: longestLine * 3, fields };
}

/**
 * Staged lines are encoded into shared slabs, many requests to one ArrayBuffer: Buffer.from took
 * one 8 KB pool per six single events, and V8 charges every new backing store. A slab lives while
 * any of its lines is queued; lines are folded in order, so that is the queue plus one slab.
 */
class Slabs {
  private slab = Buffer.alloc(0);
  private used = 0;
  constructor(private readonly bytes: number) {}

  encode(text: string): Buffer {
    const most = text.length * 3;
    if (most > this.bytes / 4) return Buffer.from(text);
    if (this.used + most > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(this.bytes);
      this.used = 0;
    }
    const start = this.used;
    this.used += this.slab.write(text, start);
    return this.slab.subarray(start, this.used);
  }
}

const slab = new Slabs(2 * 1024 * 1024);

/**
 * The staged line of one row: the same text as JSON.stringify of the row shaped by `conform`.
 * The row's fields are shaped in place (the row is the caller's to give away), so the one
 * JSON.stringify that follows is V8's own, over objects that already exist.
 */
export function stagedLine(row: LogRow, fields: RecordFields): string {
  const head = `{"id":${JSON.stringify(row.id)},"timestamp":${JSON.stringify(row.timestamp)},"event_message":${JSON.stringify(row.event_message)}`;
  if (!shapeMembers(row.fields, fields)) return slowLine(row, fields);
  const body = JSON.stringify(row.fields);
  return body.length === 2 ? `${head}}` : `${head},${body.slice(1)}`;
}

/** Rows back from staged lines, in the shape `conform` gave them (records as lists of records). */
export function rowsOfStaged(staged: StagedRows): LogRow[] {
  return splitLines(staged.lines).map((line) => {
    const { id, timestamp, event_message, ...fields } = JSON.parse(line) as { id: string; timestamp: number; event_message: string } & { [key: string]: JsonValue };
    return { id, timestamp, event_message, fields };
  });
}

export function splitLines(lines: Buffer): string[] {
  return lines.length === 0 ? [] : lines.toString('utf8').split('\n');
}

/**
 * Shape `object`'s values to their columns in place, as `conform` would; false when a key only
 * matches its column ignoring case (two such keys could land on one name, which the conformed
 * object collapses), and those rows take the slow path. `conform` gives the same result on
 * values shaped already, so a row left half shaped is still right there.
 */
function shapeMembers(object: { [key: string]: JsonValue }, fields: RecordFields): boolean {
  for (const key in object) {
    const type = fields.get(key);
    if (type === undefined) {
      if (fieldName(fields, key) !== key) return false;
      delete object[key]; // no column: conform drops it too
      continue;
    }
    const value = object[key]!;
    switch (type.kind) {
      case 'string':
        if (typeof value !== 'string') object[key] = JSON.stringify(value);
        break;
      case 'record':
        if (!shapeRecords(object, key, value, type.fields)) return false;
        break;
      case 'list':
        object[key] = conform(value, type) as JsonValue;
        break;
    }
  }
  return true;
}

/** A record column holds a list of records: a lone object becomes a list of one. */
function shapeRecords(object: { [key: string]: JsonValue }, key: string, value: JsonValue, fields: RecordFields): boolean {
  if (!Array.isArray(value)) {
    if (typeof value !== 'object') return false; // not a record: cannot happen in a fitting row
    object[key] = [value];
    return shapeMembers(value, fields);
  }
  for (const item of value) {
    if (typeof item !== 'object' || Array.isArray(item) || !shapeMembers(item, fields)) return false;
  }
  return true;
}

function slowLine(row: LogRow, fields: RecordFields): string {
  const record: Record<string, unknown> = { id: row.id, timestamp: row.timestamp, event_message: row.event_message };
  for (const [key, value] of Object.entries(row.fields)) {
    const name = fieldName(fields, key);
    const type = fields.get(name);
    if (type) record[name] = conform(value, type);
  }
  return JSON.stringify(record);
}
