/**
 * String and BYTES functions DuckDB lacks or answers differently, in JavaScript (registered with
 * the others in udfs.ts): edit distance in code points, Unicode
 * normalization and case folding, BYTES operations (DuckDB's string functions take no BLOB), and
 * the regular-expression forms whose matching BigQuery defines in its own way (how REGEXP_EXTRACT_ALL
 * and REGEXP_INSTR step over empty matches, REGEXP_EXTRACT's NULL for a group that took no part).
 * Regular expressions run in re2js, a port of RE2, as BigQuery's do; BYTES patterns read each
 * byte as one character, as RE2's Latin-1 mode does.
 */

import { RE2JS } from 're2js';
import { BIGINT, BLOB, LIST, VARCHAR } from '@duckdb/node-api';
import type { JsFunction, Value } from './udfs.ts';

/** An argument as DuckDB hands it over (VARCHAR a string, BIGINT a bigint, BLOB bytes). */
type Arg = Exclude<Value, null>;

const text = (value: Arg) => String(value);
const bytes = (value: Arg) => (typeof value === 'string' ? Buffer.from(value, 'utf8') : (value as Uint8Array));
const int = (value: Arg) => Number(value as bigint);
/** Bytes as a string of one character per byte (RE2's Latin-1 view), and back. */
const latin1 = (value: Arg) => Buffer.from(bytes(value)).toString('latin1');
const fromLatin1 = (value: string) => Uint8Array.from(Buffer.from(value, 'latin1'));

/** Levenshtein distance over `a` and `b` (arrays of code points or bytes), stopping at `max`. */
function editDistance(a: ArrayLike<unknown>, b: ArrayLike<unknown>, max: number): number {
  if (max < 0) throw new Error('max_distance must be non-negative');
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, current[j]!);
    }
    if (best >= max) return max;
    previous = current;
  }
  return Math.min(previous[b.length]!, max);
}

type NormalizeMode = 'NFC' | 'NFKC' | 'NFD' | 'NFKD';

/**
 * ICU's full case folding, which BigQuery applies after normalizing: lower, upper, lower again
 * folds what lower case alone does not (ß and ẞ to ss, ﬁ to fi, final sigma to σ).
 */
const caseFold = (value: string) => value.toLowerCase().toUpperCase().toLowerCase();

/** The code point count of `text`'s first `units` UTF-16 units. */
const codePoints = (value: string, units = value.length) => {
  let count = 0;
  for (let index = 0; index < units; index++) {
    const code = value.charCodeAt(index);
    if (code < 0xdc00 || code > 0xdfff) count++;
  }
  return count;
};

/** The UTF-16 index of `value`'s code point at 0-based `position` (its length when past the end). */
function unitIndex(value: string, position: number): number {
  let index = 0;
  for (let seen = 0; seen < position && index < value.length; seen++) index += value.codePointAt(index)! > 0xffff ? 2 : 1;
  return index;
}

const compiled = new Map<string, RE2JS>();
function regex(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (compiled.size >= 256) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

interface Match {
  /** UTF-16 span of the whole match. */
  start: number;
  end: number;
  /** The capturing group's span, or undefined when it took no part (or there is none: then the match's). */
  group?: { start: number; end: number };
}

/**
 * The matches ZetaSQL's extraction functions see (RegExp::ExtractAllIterator): each search starts
 * where the last match ended, one character further after an empty match, and stops once a match
 * reaches the end of the text.
 */
function* extractAll(re: RE2JS, value: string, units: 'utf16' | 'latin1'): Generator<Match> {
  if (re.groupCount() > 1) throw new Error('Regular expressions passed into extraction functions must not have more than 1 capturing group');
  const hasGroup = re.groupCount() > 0;
  const matcher = re.matcher(value);
  let position = 0;
  for (;;) {
    if (!matcher.find(position)) return;
    const start = matcher.start();
    const end = matcher.end();
    const groupStart = hasGroup ? matcher.start(1) : start;
    yield { start, end, ...(groupStart >= 0 ? { group: { start: groupStart, end: hasGroup ? matcher.end(1) : end } } : {}) };
    position = end;
    if (start === end && position < value.length) position += units === 'utf16' && value.codePointAt(position)! > 0xffff ? 2 : 1;
    if (position >= value.length) return;
  }
}

/** The text from the 1-based `position` (BigQuery reads the rest of the value from there), or undefined past its end. */
function fromPosition(value: string, position: number, units: 'utf16' | 'latin1'): string | undefined {
  if (position <= 0) throw new Error('Position must be positive');
  const length = units === 'utf16' ? codePoints(value) : value.length;
  if (position > length && !(length === 0 && position === 1)) return undefined;
  return value.slice(units === 'utf16' ? unitIndex(value, position - 1) : position - 1);
}

function regexpExtract(value: string, pattern: string, position: number, occurrence: number, units: 'utf16' | 'latin1'): string | null {
  if (occurrence <= 0) throw new Error('Occurrence must be positive');
  const rest = fromPosition(value, position, units);
  if (rest === undefined) return null;
  let seen = 0;
  for (const match of extractAll(regex(pattern), rest, units)) {
    if (++seen === occurrence) return match.group ? rest.slice(match.group.start, match.group.end) : null;
  }
  return null;
}

function regexpExtractAll(value: string, pattern: string, units: 'utf16' | 'latin1'): string[] {
  return [...extractAll(regex(pattern), value, units)].map((match) => (match.group ? value.slice(match.group.start, match.group.end) : ''));
}

/** REGEXP_INSTR as ZetaSQL computes it (RegExp::Instr), positions in code points (bytes for BYTES). */
function regexpInstr(value: string, pattern: string, position: number, occurrence: number, after: number, units: 'utf16' | 'latin1'): number {
  if (position <= 0) throw new Error('Position must be positive');
  if (occurrence <= 0) throw new Error('Occurrence must be positive');
  if (after !== 0 && after !== 1) throw new Error('Invalid occurrence_position: must be 0 or 1');
  const length = units === 'utf16' ? codePoints(value) : value.length;
  if (position > length || pattern === '') return 0;
  const rest = value.slice(units === 'utf16' ? unitIndex(value, position - 1) : position - 1);
  const re = regex(pattern);
  let seen = 0;
  for (const match of extractAll(re, rest, units)) {
    if (++seen < occurrence) continue;
    if (!match.group) return 0;
    // ZetaSQL counts from where its search stopped: the group's end, or without a group the
    // match's end, one character further after an empty match.
    const step = units === 'utf16' && rest.codePointAt(match.end)! > 0xffff ? 2 : 1;
    const end = re.groupCount() > 0 ? match.group.end : match.start === match.end && match.end < rest.length ? match.end + step : match.end;
    const at = after === 1 ? end : end - (match.group.end - match.group.start);
    return (units === 'utf16' ? codePoints(rest, at) : at) + position;
  }
  return 0;
}

function split(value: Uint8Array, delimiter: Uint8Array): Uint8Array[] {
  const source = Buffer.from(value);
  if (delimiter.length === 0) return source.length === 0 ? [new Uint8Array()] : Array.from(source, (byte) => Uint8Array.of(byte));
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let at = source.indexOf(delimiter, start); at >= 0; at = source.indexOf(delimiter, start)) {
    parts.push(Uint8Array.from(source.subarray(start, at)));
    start = at + delimiter.length;
  }
  parts.push(Uint8Array.from(source.subarray(start)));
  return parts;
}

function replaceBytes(value: Uint8Array, from: Uint8Array, to: Uint8Array): Uint8Array {
  if (from.length === 0) return value;
  return Buffer.concat(split(value, from).flatMap((part, index) => (index === 0 ? [part] : [to, part])));
}

function trimBytes(value: Uint8Array, set: Uint8Array, side: number): Uint8Array {
  const remove = new Set(set);
  let start = 0;
  let end = value.length;
  if (side !== 2) while (start < end && remove.has(value[start]!)) start++;
  if (side !== 1) while (end > start && remove.has(value[end - 1]!)) end--;
  return value.slice(start, end);
}

function translateBytes(value: Uint8Array, from: Uint8Array, to: Uint8Array): Uint8Array {
  const map = new Map<number, number | undefined>();
  from.forEach((byte, index) => {
    if (map.has(byte)) throw new Error(`Duplicate byte 0x${byte.toString(16).padStart(2, '0')} in TRANSLATE source bytes`);
    map.set(byte, to[index]);
  });
  return Uint8Array.from([...value].flatMap((byte) => (map.has(byte) ? (map.get(byte) === undefined ? [] : [map.get(byte)!]) : [byte])));
}

/** ASCII letters only change case in BYTES. */
const caseBytes = (value: Uint8Array, upper: boolean) =>
  value.map((byte) => (upper ? (byte >= 0x61 && byte <= 0x7a ? byte - 32 : byte) : byte >= 0x41 && byte <= 0x5a ? byte + 32 : byte));

export const STRING_JS_FUNCTIONS: readonly JsFunction[] = [
  { name: 'sawmill_edit_distance', parameters: [VARCHAR, VARCHAR, BIGINT], returns: BIGINT, apply: (a, b, max) => BigInt(editDistance(Array.from(text(a)), Array.from(text(b)), int(max))) },
  { name: 'sawmill_bytes_edit_distance', parameters: [BLOB, BLOB, BIGINT], returns: BIGINT, apply: (a, b, max) => BigInt(editDistance(bytes(a), bytes(b), int(max))) },
  { name: 'sawmill_normalize', parameters: [VARCHAR, VARCHAR], returns: VARCHAR, apply: (value, mode) => text(value).normalize(text(mode) as NormalizeMode) },
  { name: 'sawmill_normalize_casefold', parameters: [VARCHAR, VARCHAR], returns: VARCHAR, apply: (value, mode) => caseFold(text(value).normalize(text(mode) as NormalizeMode)) },
  { name: 'sawmill_bytes_reverse', parameters: [BLOB], returns: BLOB, apply: (value) => Uint8Array.from(bytes(value)).reverse() },
  { name: 'sawmill_bytes_replace', parameters: [BLOB, BLOB, BLOB], returns: BLOB, apply: (value, from, to) => replaceBytes(bytes(value), bytes(from), bytes(to)) },
  { name: 'sawmill_bytes_trim', parameters: [BLOB, BLOB, BIGINT], returns: BLOB, apply: (value, set, side) => trimBytes(bytes(value), bytes(set), int(side)) },
  { name: 'sawmill_bytes_case', parameters: [BLOB, BIGINT], returns: BLOB, apply: (value, upper) => caseBytes(bytes(value), int(upper) === 1) },
  { name: 'sawmill_bytes_translate', parameters: [BLOB, BLOB, BLOB], returns: BLOB, apply: (value, from, to) => translateBytes(bytes(value), bytes(from), bytes(to)) },
  { name: 'sawmill_bytes_split', parameters: [BLOB, BLOB], returns: LIST(BLOB), apply: (value, delimiter) => split(bytes(value), bytes(delimiter)) },
  { name: 'sawmill_bytes_code_points', parameters: [BLOB], returns: LIST(BIGINT), apply: (value) => Array.from(bytes(value), (byte) => BigInt(byte)) },
  {
    name: 'sawmill_regexp_extract',
    parameters: [VARCHAR, VARCHAR, BIGINT, BIGINT],
    returns: VARCHAR,
    apply: (value, pattern, position, occurrence) => regexpExtract(text(value), text(pattern), int(position), int(occurrence), 'utf16'),
  },
  {
    name: 'sawmill_bytes_regexp_extract',
    parameters: [BLOB, BLOB, BIGINT, BIGINT],
    returns: BLOB,
    apply: (value, pattern, position, occurrence) => {
      const found = regexpExtract(latin1(value), latin1(pattern), int(position), int(occurrence), 'latin1');
      return found === null ? null : fromLatin1(found);
    },
  },
  { name: 'sawmill_regexp_extract_all', parameters: [VARCHAR, VARCHAR], returns: LIST(VARCHAR), apply: (value, pattern) => regexpExtractAll(text(value), text(pattern), 'utf16') },
  {
    name: 'sawmill_bytes_regexp_extract_all',
    parameters: [BLOB, BLOB],
    returns: LIST(BLOB),
    apply: (value, pattern) => regexpExtractAll(latin1(value), latin1(pattern), 'latin1').map(fromLatin1),
  },
  {
    name: 'sawmill_regexp_instr',
    parameters: [VARCHAR, VARCHAR, BIGINT, BIGINT, BIGINT],
    returns: BIGINT,
    apply: (value, pattern, position, occurrence, after) => BigInt(regexpInstr(text(value), text(pattern), int(position), int(occurrence), int(after), 'utf16')),
  },
  {
    name: 'sawmill_bytes_regexp_instr',
    parameters: [BLOB, BLOB, BIGINT, BIGINT, BIGINT],
    returns: BIGINT,
    apply: (value, pattern, position, occurrence, after) => BigInt(regexpInstr(latin1(value), latin1(pattern), int(position), int(occurrence), int(after), 'latin1')),
  },
  { name: 'sawmill_bytes_regexp_contains', parameters: [BLOB, BLOB], returns: BIGINT, apply: (value, pattern) => (regex(latin1(pattern)).test(latin1(value)) ? 1n : 0n) },
  {
    name: 'sawmill_bytes_regexp_replace',
    parameters: [BLOB, BLOB, BLOB],
    returns: BLOB,
    apply: (value, pattern, rewrite) => fromLatin1(regexpReplace(latin1(value), latin1(pattern), latin1(rewrite))),
  },
];

/** REGEXP_REPLACE over a Latin-1 view of BYTES (RegExp::Replace: no empty match right after a match). */
function regexpReplace(value: string, pattern: string, rewrite: string): string {
  const re = regex(pattern);
  const matcher = re.matcher(value);
  let out = '';
  let position = 0;
  let lastEnd = -1;
  while (position <= value.length) {
    if (!matcher.find(position)) {
      out += value.slice(position);
      break;
    }
    const start = matcher.start();
    const end = matcher.end();
    out += value.slice(position, start);
    if (start !== end) {
      out += substitute(rewrite, (group) => matcher.group(group) ?? '');
      position = end;
    } else {
      if (start !== lastEnd) out += substitute(rewrite, (group) => matcher.group(group) ?? '');
      if (start >= value.length) break;
      out += value[start];
      position = start + 1;
    }
    lastEnd = end;
  }
  return out;
}

/** RE2's rewrite string: \0 to \9 are groups, \\ a backslash. */
function substitute(rewrite: string, group: (index: number) => string): string {
  return rewrite.replace(/\\([0-9\\])/g, (_, which: string) => (which === '\\' ? '\\' : group(Number(which))));
}
