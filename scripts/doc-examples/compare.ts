/**
 * Does an endpoint's reply hold the rows a documentation page prints?
 *
 * The printed side is BigQuery's console rendering, loosely written: strings bare (quoted inside
 * structs), NULL, arrays `[a, b]`, structs `{a: 1, b: "x"}`, `{1 a, 'x' b}` or `(1, 'x')`,
 * TIMESTAMP with a zone (often America/Los_Angeles on ZetaSQL's pages), JSON as text, BYTES as
 * `b"…"` or bare with `\x` escapes. The reply side is Sawmill's JSON: TIMESTAMP as integer
 * microseconds, DATETIME `YYYY-MM-DDTHH:MM:SS[.ffffff]`, DATE `YYYY-MM-DD`, arrays as arrays,
 * structs as objects, JSON values as JSON, BYTES as base64, NaN and infinities as the strings
 * "NaN", "Infinity", "-Infinity", a NULL ARRAY as [] (BigQuery's REST encoding).
 *
 * Each value is compared by the reply's type, and never loosely: integers exactly (past 2^53
 * too), other numbers within a relative 1e-9 (or, printed with three or more decimals, as rounded
 * to the last printed one), TIMESTAMPs as instants, DATETIMEs as wall clocks,
 * struct fields by position (a printed field label must be that field's name). Where BigQuery's type
 * cannot be read off the printed text (JSON, BYTES or STRING), the query's hint decides
 * (sql-text.ts), and a value that only matches under another type is a mismatch.
 */

import type { PrintedTable } from './extract.ts';
import { ANY, type Hint } from './sql-text.ts';

// ---- the reply, numbers kept as written ------------------------------------------------------------

class WireNumber {
  constructor(readonly text: string) {}
}

class WireObject {
  constructor(readonly entries: Array<[string, Wire]>) {}
}

export type Wire = null | boolean | string | WireNumber | WireObject | Wire[];

/** JSON text with numbers kept as their text and object keys in order. */
export function parseWire(text: string): Wire {
  let i = 0;
  const fail = (): never => {
    throw new Error(`unreadable JSON at ${i}: ${text.slice(i, i + 40)}`);
  };
  const space = () => {
    while (/\s/.test(text[i] ?? '')) i++;
  };
  const value = (): Wire => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: Array<[string, Wire]> = [];
      space();
      if (text[i] === '}') return i++, new WireObject(entries);
      for (;;) {
        space();
        const key = value();
        if (typeof key !== 'string') fail();
        space();
        if (text[i++] !== ':') fail();
        entries.push([key as string, value()]);
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return i++, new WireObject(entries);
        else fail();
      }
    }
    if (c === '[') {
      i++;
      const items: Wire[] = [];
      space();
      if (text[i] === ']') return i++, items;
      for (;;) {
        items.push(value());
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return i++, items;
        else fail();
      }
    }
    if (c === '"') {
      const m = text.slice(i).match(/^"(?:[^"\\]|\\.)*"/s) ?? fail();
      i += m[0].length;
      return JSON.parse(m[0]) as string;
    }
    const m = text.slice(i).match(/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/) ?? fail();
    i += m[0].length;
    if (m[0] === 'true' || m[0] === 'false') return m[0] === 'true';
    return m[0] === 'null' ? null : new WireNumber(m[0]);
  };
  const result = value();
  space();
  if (i !== text.length) fail();
  return result;
}

function showWire(value: Wire): string {
  if (value === null) return 'NULL';
  if (value instanceof WireNumber) return value.text;
  if (value instanceof WireObject) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${showWire(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(showWire).join(',')}]`;
  return JSON.stringify(value);
}

// ---- one value -----------------------------------------------------------------------------------

export interface Mismatch {
  reason: string;
  /** The printed text itself could not be read as a value of the expected kind. */
  unreadable?: boolean;
}

const differ = (reason: string): Mismatch => ({ reason });
const clip = (text: string, length = 120) => (text.length > length ? `${text.slice(0, length)}…` : text);

/** Undefined when `actual` (the reply's value) is what `printed` shows, else why not. */
export function compareValue(actual: Wire, printed: string, hint: Hint = ANY, nested = false): Mismatch | undefined {
  const text = printed.trim();
  if (hint.kind === 'json') return compareJson(actual, text);
  if (hint.kind === 'bytes') return compareBytes(actual, text);
  // BigQuery's query results write a NULL ARRAY as an empty one (ZetaSQL's pages print it NULL).
  if (text === 'NULL') {
    const printedAlike = actual === null || (Array.isArray(actual) && actual.length === 0) || (hint.kind === 'string' && hint.nullText === true && actual === 'NULL');
    return printedAlike ? undefined : differ(`expected NULL, got ${clip(showWire(actual))}`);
  }
  if (actual === null) return differ(`expected ${clip(text)}, got NULL`);
  if (hint.kind === 'string' && typeof actual !== 'string') return differ(`expected the STRING ${clip(text)}, got ${clip(showWire(actual))}`);
  if (typeof actual === 'string') {
    // The console prints the STRING '7' as 7 too: a string for a printed number or boolean only
    // where the query makes the column a STRING (a number returned as text is a common mistake).
    if (hint.kind !== 'string' && (NUMBER.test(text) || /^(true|false)$/i.test(text))) return differ(`expected ${clip(text)}, got the string ${clip(JSON.stringify(actual))}`);
    const mismatch = compareString(actual, text, nested);
    if (mismatch && hint.kind === 'string' && hint.unorderedParts !== undefined && sameParts(actual, text, hint.unorderedParts)) return undefined;
    return mismatch;
  }
  if (typeof actual === 'boolean') return text.toLowerCase() === String(actual) ? undefined : differ(`expected ${clip(text)}, got ${actual}`);
  if (actual instanceof WireNumber) return compareNumber(actual, text);
  if (Array.isArray(actual)) return compareArray(actual, text, hint.kind === 'array' ? hint : undefined);
  return compareStruct(actual, text);
}

function compareString(actual: string, text: string, nested: boolean): Mismatch | undefined {
  if (actual === text) return undefined;
  const got = () => differ(`expected ${clip(text)}, got ${clip(JSON.stringify(actual))}`);
  // Inside a struct or array the console may quote a string; at the top level quotes are content.
  if (nested) {
    const unquoted = unquote(text);
    if (unquoted !== undefined && unquoted === actual) return undefined;
  }
  if (DATETIME_WIRE.test(actual)) {
    if (TIMESTAMP_PRINTED.test(text)) return differ(`expected the TIMESTAMP ${text}, got the DATETIME ${actual}`);
    const printed = civil(text);
    return printed !== undefined && printed === civil(actual) ? undefined : got();
  }
  if (TIME_WIRE.test(actual)) {
    const printed = clock(text);
    return printed !== undefined && printed === clock(actual) ? undefined : got();
  }
  const special = nonFinite(text);
  if (special !== undefined && special === actual) return undefined;
  return got();
}

/** `'a\'b'` or `"a"` → the string; undefined when not quoted. */
function unquote(text: string): string | undefined {
  const m = text.match(/^(['"])([\s\S]*)\1$/);
  return m ? m[2]!.replace(/\\(.)/g, '$1') : undefined;
}

const DATETIME_WIRE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/;
const TIME_WIRE = /^\d{2}:\d{2}:\d{2}(\.\d+)?$/;
const TIMESTAMP_PRINTED = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?|[A-Za-z_]+(?:\/[A-Za-z_+-]+)+)$/;

/** A wall clock `YYYY-MM-DD[ T]H:MM:SS[.f]` in one spelling, fraction without trailing zeros. */
function civil(text: string): string | undefined {
  const m = text.match(/^(\d{4}-\d{2}-\d{2})[ T](\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?$/);
  return m ? `${m[1]}T${m[2]!.padStart(2, '0')}:${m[3]}:${m[4]}${fraction(m[5])}` : undefined;
}

function clock(text: string): string | undefined {
  const m = text.match(/^(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?$/);
  return m ? `${m[1]!.padStart(2, '0')}:${m[2]}:${m[3]}${fraction(m[4])}` : undefined;
}

const fraction = (digits: string | undefined) => {
  const trimmed = (digits ?? '').replace(/0+$/, '');
  return trimmed ? `.${trimmed}` : '';
};

/** BigQuery's REST spelling of a printed NaN or infinity. */
function nonFinite(text: string): string | undefined {
  if (/^nan$/i.test(text)) return 'NaN';
  if (/^(\+?inf|\+?infinity)$/i.test(text)) return 'Infinity';
  if (/^(-inf|-infinity)$/i.test(text)) return '-Infinity';
  return undefined;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

function compareNumber(actual: WireNumber, text: string): Mismatch | undefined {
  const got = (detail = '') => differ(`expected ${clip(text)}, got ${actual.text}${detail}`);
  if (NUMBER.test(text)) return sameNumber(actual.text, text) ? undefined : got();
  if (TIMESTAMP_PRINTED.test(text)) {
    const micros = instantMicros(text);
    if (micros === undefined) return { reason: `printed timestamp ${text} not readable`, unreadable: true };
    if (!INTEGER.test(actual.text)) return got();
    return BigInt(actual.text) === micros ? undefined : got(` (${isoOfMicros(BigInt(actual.text))})`);
  }
  return got();
}

/** `a` the reply's number, `b` the printed one. */
function sameNumber(a: string, b: string): boolean {
  if (INTEGER.test(a) && INTEGER.test(b)) return BigInt(a) === BigInt(b);
  const x = Number(a);
  const y = Number(b);
  if (x === y || Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) || Math.abs(x - y) < 1e-12) return true;
  // Pages print some results rounded (`2.828` for 2.8284271…): three or more decimals are read as
  // rounded to the last one printed. Fewer (`2.5`) are taken as exact.
  const decimals = b.match(/^[+-]?\d*\.(\d{3,})$/)?.[1]?.length;
  return decimals !== undefined && Math.abs(x - y) <= 0.5 * 10 ** -decimals * (1 + 1e-9);
}

/** A printed TIMESTAMP (`2008-12-25 07:30:00.000 America/Los_Angeles`, `… 15:30:00+00`) as microseconds since the epoch. */
export function instantMicros(text: string): bigint | undefined {
  const m = text.match(TIMESTAMP_PRINTED);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone = ''] = m;
  if (/[1-9]/.test(frac.slice(6))) return undefined; // finer than BigQuery's microseconds
  const wallMillis = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const offsetMinutes = zoneOffsetMinutes(zone, wallMillis);
  if (offsetMinutes === undefined) return undefined;
  return BigInt(wallMillis - offsetMinutes * 60_000) * 1000n + BigInt(frac.padEnd(6, '0').slice(0, 6) || '0');
}

/** The zone's offset from UTC in minutes at the wall-clock time `wallMillis` (read as if UTC). */
function zoneOffsetMinutes(zone: string, wallMillis: number): number | undefined {
  if (zone === '' || /^(Z|UTC)$/i.test(zone)) return 0;
  const offset = zone.match(/^([+-])(\d{1,2})(?::?(\d{2}))?$/);
  if (offset) return (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3] ?? 0));
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  } catch {
    return undefined;
  }
  const offsetAt = (utcMillis: number) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(utcMillis)).map((p) => [p.type, p.value]));
    const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
    return Math.round((asUtc - utcMillis) / 60_000);
  };
  // The offset at the instant the wall clock names: guess with the offset at the wall time read as UTC, then correct once.
  const first = offsetAt(wallMillis);
  return offsetAt(wallMillis - first * 60_000);
}

function isoOfMicros(micros: bigint): string {
  const millis = Number(micros / 1000n);
  return Number.isFinite(millis) && Math.abs(millis) < 8.64e15 ? new Date(millis).toISOString() : `${micros} µs`;
}

/** STRING_AGG without ORDER BY: the same parts, in any order. */
function sameParts(actual: string, text: string, delimiter: string): boolean {
  if (delimiter === '') return [...actual].sort().join('') === [...text].sort().join('');
  const sorted = (value: string) => value.split(delimiter).sort().join(delimiter);
  return sorted(actual) === sorted(text);
}

function compareArray(actual: Wire[], text: string, hint: Extract<Hint, { kind: 'array' }> | undefined): Mismatch | undefined {
  const items = bracketItems(text, '[', ']');
  if (!items) return differ(`expected ${clip(text)}, got the array ${clip(showWire(actual))}`);
  if (items.length !== actual.length) return differ(`expected ${items.length} elements ${clip(text)}, got ${actual.length}: ${clip(showWire(actual))}`);
  const element = hint?.element ?? ANY;
  if (hint?.unordered) {
    const missing = unmatched(items.length, actual.length, (i, a) => compareValue(actual[a]!, items[i]!, element, true) === undefined);
    return missing === undefined ? undefined : differ(`element ${items[missing]} (in any order) of ${clip(text)} not in ${clip(showWire(actual))}`);
  }
  for (const [index, item] of items.entries()) {
    const mismatch = compareValue(actual[index]!, item, element, true);
    if (mismatch) return { ...mismatch, reason: `element ${index + 1}: ${mismatch.reason}` };
  }
  return undefined;
}

/** A struct: fields by position; a printed label (`a: 1`, `1 a`) must be the field's own name. */
function compareStruct(actual: WireObject, text: string): Mismatch | undefined {
  const items = bracketItems(text, '{', '}') ?? bracketItems(text, '(', ')') ?? bracketItems(text.replace(/^STRUCT\s*/i, ''), '(', ')');
  if (!items) return differ(`expected ${clip(text)}, got the struct ${clip(showWire(actual))}`);
  if (items.length !== actual.entries.length) return differ(`expected ${items.length} fields ${clip(text)}, got ${actual.entries.length}: ${clip(showWire(actual))}`);
  for (const [index, item] of items.entries()) {
    const [name, value] = actual.entries[index]!;
    const labelled = withoutLabel(item, name);
    const mismatch = compareValue(value, labelled ?? item, ANY, true);
    if (mismatch && labelled !== undefined) return { ...mismatch, reason: `field ${name}: ${mismatch.reason}` };
    if (mismatch) return { ...mismatch, reason: `field ${index + 1} (${name}): ${mismatch.reason}` };
  }
  return undefined;
}

/** `name: value` or `value name` → value, when the label is this field's name. */
function withoutLabel(item: string, name: string): string | undefined {
  const prefix = item.match(/^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([\s\S]*)$/);
  if (prefix && prefix[1]!.toLowerCase() === name.toLowerCase()) return prefix[2]!;
  const suffix = item.match(/^([\s\S]*\S)\s+([A-Za-z_][A-Za-z0-9_]*)$/);
  if (suffix && suffix[2]!.toLowerCase() === name.toLowerCase()) return suffix[1]!;
  return undefined;
}

/** The comma-separated items between `open` and `close`, or undefined when the text is not so bracketed. */
function bracketItems(text: string, open: string, close: string): string[] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith(open) || !trimmed.endsWith(close)) return undefined;
  const inner = trimmed.slice(1, -1);
  if (inner.trim() === '') return [];
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  let quote: string | undefined;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    // A quote opens a string only at the start of an item: bare strings may hold apostrophes.
    if ((c === '"' || c === "'") && inner.slice(start, i).trim() === '') quote = c;
    else if ('[{('.includes(c)) depth++;
    else if (']})'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      items.push(inner.slice(start, i).trim());
      start = i + 1;
    }
    if (depth < 0) return undefined;
  }
  if (depth !== 0 || quote) return undefined;
  items.push(inner.slice(start).trim());
  return items;
}

// ---- JSON and BYTES, which the printed text alone cannot tell from STRING ------------------------------

function compareJson(actual: Wire, text: string): Mismatch | undefined {
  if (text === 'NULL') return actual === null ? undefined : differ(`expected NULL, got ${clip(showWire(actual))}`);
  let expected: Wire;
  try {
    expected = parseWire(text);
  } catch {
    return { reason: `printed JSON not readable: ${clip(text)}`, unreadable: true };
  }
  // JSON null and SQL NULL are the same `null` in the reply.
  if (expected === null) return actual === null ? undefined : differ(`expected JSON null, got ${clip(showWire(actual))}`);
  if (typeof actual === 'string' && typeof expected !== 'string') return differ(`expected the JSON value ${clip(text)}, got the string ${clip(JSON.stringify(actual))}`);
  return sameJson(actual, expected) ? undefined : differ(`expected JSON ${clip(text)}, got ${clip(showWire(actual))}`);
}

/** JSON equality: object members as a set, arrays in order, numbers as in sameNumber. */
function sameJson(actual: Wire, expected: Wire): boolean {
  if (actual instanceof WireNumber || expected instanceof WireNumber) {
    return actual instanceof WireNumber && expected instanceof WireNumber && sameNumber(actual.text, expected.text);
  }
  if (Array.isArray(actual) || Array.isArray(expected)) {
    return Array.isArray(actual) && Array.isArray(expected) && actual.length === expected.length && actual.every((item, i) => sameJson(item, expected[i]!));
  }
  if (actual instanceof WireObject || expected instanceof WireObject) {
    if (!(actual instanceof WireObject && expected instanceof WireObject) || actual.entries.length !== expected.entries.length) return false;
    const members = new Map(actual.entries);
    return expected.entries.every(([key, value]) => members.has(key) && sameJson(members.get(key)!, value));
  }
  return actual === expected;
}

function compareBytes(actual: Wire, text: string): Mismatch | undefined {
  if (text === 'NULL') return actual === null ? undefined : differ(`expected NULL, got ${clip(showWire(actual))}`);
  const expected = printedBytes(text);
  if (!expected) return { reason: `printed BYTES not readable: ${clip(text)}`, unreadable: true };
  const want = `expected BYTES ${clip(text)} (base64 ${expected.toString('base64')})`;
  if (typeof actual !== 'string') return differ(`${want}, got ${clip(showWire(actual))}`);
  const canonical = /^[A-Za-z0-9+/]*={0,2}$/.test(actual) && Buffer.from(actual, 'base64').toString('base64') === actual;
  if (!canonical) return differ(`${want}, got ${clip(JSON.stringify(actual))}, not base64`);
  return Buffer.from(actual, 'base64').equals(expected) ? undefined : differ(`${want}, got base64 ${clip(actual)}`);
}

/** `b"a\x00"`, `b'…'` or bare text with `\x` escapes → the bytes. */
function printedBytes(text: string): Buffer | undefined {
  const quoted = text.match(/^[bB](['"])([\s\S]*)\1$/);
  const body = quoted ? quoted[2]! : text;
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(String.fromCodePoint(body.codePointAt(i)!), 'utf8'));
      if (body.codePointAt(i)! > 0xffff) i++;
      continue;
    }
    const next = body[i + 1];
    const hex = body.slice(i + 2, i + 4);
    if ((next === 'x' || next === 'X') && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else if (/^[0-7]{3}$/.test(body.slice(i + 1, i + 4))) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else if (next !== undefined && SIMPLE_ESCAPES[next] !== undefined) {
      bytes.push(SIMPLE_ESCAPES[next]!);
      i++;
    } else {
      return undefined;
    }
  }
  return Buffer.from(bytes);
}

const SIMPLE_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, '\\': 92, "'": 39, '"': 34, '0': 0, a: 7, b: 8, f: 12, v: 11, '`': 96, '?': 63 };

// ---- rows --------------------------------------------------------------------------------------------

export interface ColumnHints {
  positional: Hint[] | undefined;
  byName: Map<string, Hint>;
}

/**
 * Undefined when the reply's rows are the printed ones, else why not. Columns by position, unless
 * the printed header names a subset or a reordering of the reply's columns (the page then left
 * columns out, or printed them in another order), when by name. Rows in order when the query
 * orders them, else as a multiset.
 */
export function compareRows(printed: PrintedTable, reply: Wire, hints: ColumnHints, ordered: boolean): Mismatch | undefined {
  if (!Array.isArray(reply) || !reply.every((row) => row instanceof WireObject)) return differ(`the reply is not an array of rows: ${clip(showWire(reply))}`);
  const rows = reply as WireObject[];
  const got = () => `; got ${clip(rows.map((row) => showWire(row)).join(', '), 300)}`;
  if (rows.length !== printed.rows.length) return differ(`${printed.rows.length} rows expected, ${rows.length} returned${got()}`);
  if (rows.length === 0) return undefined;
  const names = rows[0]!.entries.map(([name]) => name);
  const width = printed.header?.length ?? printed.rows[0]!.length;
  const byName = printed.header && headerByName(printed.header, names);
  if (!byName && width !== names.length) return differ(`${width} columns printed (${printed.header?.join(', ') ?? 'no header'}), ${names.length} returned (${names.join(', ')})`);
  const columns = byName ?? names.map((_, i) => i);
  const hintFor = (column: number) => {
    const positional = hints.positional?.length === names.length ? hints.positional[column] : undefined;
    return positional && positional.kind !== 'any' ? positional : (hints.byName.get(names[column]!.toLowerCase()) ?? positional ?? ANY);
  };
  const rowMismatch = (actual: WireObject, expected: string[]): Mismatch | undefined => {
    for (const [k, column] of columns.entries()) {
      const mismatch = compareValue(actual.entries[column]![1], expected[k]!, hintFor(column));
      if (mismatch) return { ...mismatch, reason: `column ${names[column]}: ${mismatch.reason}` };
    }
    return undefined;
  };
  if (ordered) {
    for (const [index, expected] of printed.rows.entries()) {
      const mismatch = rowMismatch(rows[index]!, expected);
      if (mismatch) return { ...mismatch, reason: `row ${index + 1}, ${mismatch.reason}` };
    }
    return undefined;
  }
  const unmatchedRow = unmatched(printed.rows.length, rows.length, (e, a) => rowMismatch(rows[a]!, printed.rows[e]!) === undefined);
  if (unmatchedRow === undefined) return undefined;
  // Say why against the returned row at the same position, the likeliest counterpart.
  const example = rowMismatch(rows[unmatchedRow] ?? rows[0]!, printed.rows[unmatchedRow]!);
  if (example?.unreadable) return example;
  return differ(`no returned row matches printed row ${unmatchedRow + 1} (${printed.rows[unmatchedRow]!.join(' | ')})${example ? `; against row ${unmatchedRow + 1}: ${example.reason}` : ''}`);
}

/** Reply column indexes in printed order, when every printed header names a distinct reply column. */
function headerByName(header: string[], names: string[]): number[] | undefined {
  const lower = names.map((name) => name.toLowerCase());
  const indexes = header.map((name) => lower.indexOf(name.toLowerCase()));
  if (indexes.some((i) => i < 0) || new Set(indexes).size !== indexes.length) return undefined;
  // Same columns in the same order: by position anyway (names may repeat there).
  return indexes.every((i, k) => i === k) && header.length === names.length ? undefined : indexes;
}

/** The index of an expected item no actual item matches, pairing items one to one (augmenting paths). */
function unmatched(expected: number, actual: number, matches: (expected: number, actual: number) => boolean): number | undefined {
  const edges = Array.from({ length: expected }, (_, e) => Array.from({ length: actual }, (_, a) => matches(e, a)));
  const owner = new Array<number>(actual).fill(-1);
  const assign = (e: number, seen: boolean[]): boolean => {
    for (let a = 0; a < actual; a++) {
      if (!edges[e]![a] || seen[a]) continue;
      seen[a] = true;
      if (owner[a] === -1 || assign(owner[a]!, seen)) {
        owner[a] = e;
        return true;
      }
    }
    return false;
  };
  for (let e = 0; e < expected; e++) if (!assign(e, new Array<boolean>(actual).fill(false))) return e;
  return undefined;
}
