/**
 * Rows written once, at acknowledgement, in the form a warehouse loads them: one JSON object per
 * line with the fixed columns inline and every field shaped to its column (`conform`). The
 * journal keeps these lines and a fold hands them to the warehouse as they are, so an event is
 * serialised once instead of twice, and the queue holds bytes rather than object graphs.
 */
import { conform, fieldName, fitsFields } from './schema.ts';
import type { FieldType, JsonValue, LogRow, RecordFields, StagedRows } from './types.ts';

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
  // A UTF-16 code unit takes at most 3 bytes in UTF-8.
  return { lines: Buffer.from(text), count: rows.length, maxLineBytes: longest * 3, fields };
}

/** The staged line of one row: the same text as JSON.stringify of the row shaped by `conform`. */
export function stagedLine(row: LogRow, fields: RecordFields): string {
  const head = `{"id":${JSON.stringify(row.id)},"timestamp":${JSON.stringify(row.timestamp)},"event_message":${JSON.stringify(row.event_message)}`;
  const body = membersJson(row.fields, fields);
  return body === undefined ? slowLine(row, fields) : `${head}${body}}`;
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
 * `,"name":value` for each field that has a column, or undefined when a key only matches its
 * column ignoring case: two such keys could land on one name, which JSON.stringify of the
 * conformed object collapses, so those rows take the slow path.
 */
function membersJson(object: { [key: string]: JsonValue }, fields: RecordFields): string | undefined {
  let out = '';
  for (const key in object) {
    const type = fields.get(key);
    if (type === undefined) {
      if (fieldName(fields, key) !== key) return undefined;
      continue; // no column: conform drops it too
    }
    const value = valueJson(object[key]!, type);
    if (value === undefined) return undefined;
    out += `,${JSON.stringify(key)}:${value}`;
  }
  return out;
}

function valueJson(value: JsonValue, type: FieldType): string | undefined {
  switch (type.kind) {
    case 'string':
      return JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value));
    case 'record': {
      const items = Array.isArray(value) ? value : [value];
      let out = '';
      for (const item of items) {
        if (typeof item !== 'object' || Array.isArray(item)) continue;
        const members = membersJson(item, type.fields);
        if (members === undefined) return undefined;
        out += out === '' ? `{${members.slice(1)}}` : `,{${members.slice(1)}}`;
      }
      return `[${out}]`;
    }
    case 'list': {
      const items = Array.isArray(value) ? value : [value];
      if (type.element.kind !== 'string' || items.every((item) => typeof item === 'string')) return JSON.stringify(items);
      return JSON.stringify(items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))));
    }
    default:
      return JSON.stringify(value);
  }
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
