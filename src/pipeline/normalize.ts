/**
 * One raw event → one storable LogRow, following compat.md "Turning a request into a stored event".
 *
 * Decisions where the spec is silent:
 * - event_message: `message`, else `event_message`, else `log_entry`; `null` counts as absent; a
 *   non-string is stored as its JSON text; none of them → "" (current Logflare accepts events
 *   without a message). All three keys are consumed, even the ones not chosen, as in Logflare.
 * - id: a non-empty string is kept; a finite number is kept as its decimal text (dropping it would
 *   lose the sender's id); anything else gets a new random UUID.
 * - timestamp: see parseTimestamp. Unparsable → now, and the unparsable value is not kept.
 * - Field keys: see safeKey and safeKeys. Collisions within one object, ignoring case, get `_2`,
 *   `_3`, ...; a top-level key equal to a fixed column in another case (`ID`) is renamed (`ID_2`).
 * - Values: `null` is dropped, and so are objects and arrays left empty once their nulls are gone,
 *   as Logflare does (an empty record has no type a warehouse can store). Empty strings are kept:
 *   unlike Logflare, which drops them, we treat "" as a real value. Non-finite numbers (JSON like
 *   `1e400` parses to Infinity) are stored as the strings "Infinity" / "-Infinity". Integers beyond
 *   2^53 have already lost precision in JSON.parse; they are stored as the nearest double.
 *   A lone UTF-16 surrogate in a string (JSON allows `"\ud800"`, UTF-8 cannot hold it) becomes
 *   U+FFFD, as any UTF-8 decoder would do; left in, it made the warehouse refuse the whole commit.
 * - Limits: a container nested deeper than maxDepth (the event itself is depth 0, `metadata` depth 1)
 *   is stored as its original JSON text at that spot; so is an object with more than
 *   maxKeysPerObject keys, except the event's own top level, which is rejected instead. Keys and
 *   values inside such text are not sanitised. The event size is the approximate size in bytes of
 *   the stored event as JSON text; over maxEventBytes the event is rejected.
 */
import { randomUUID } from 'node:crypto';
import { toJsonText } from '../ingest/json-text.ts';
import { FIXED_COLUMNS, OVERFLOW_FIELD, type JsonValue, type LogRow } from '../warehouse/types.ts';

export interface NormalizeLimits {
  /** Containers below this many levels are kept as JSON text. */
  maxDepth: number;
  /** Approximate JSON size of the stored event; beyond it the event is rejected. */
  maxEventBytes: number;
  /** Objects with more keys are kept as JSON text (the event's top level is rejected instead). */
  maxKeysPerObject: number;
}

export const DEFAULT_NORMALIZE_LIMITS: Readonly<NormalizeLimits> = {
  maxDepth: 16,
  maxEventBytes: 1024 * 1024,
  maxKeysPerObject: 1000,
};

/** Events further ahead of the server clock than this are rejected, not clamped. */
export const MAX_FUTURE_MICROS = 3600 * 1_000_000;
export const MAX_KEY_BYTES = 128;

export type NormalizeResult = { ok: true; row: LogRow } | { ok: false; error: string };

const MESSAGE_KEYS = ['message', 'event_message', 'log_entry'] as const;
/** Top-level names the event's own keys may not take: the fixed columns and the overflow field. */
export const RESERVED_TOP_LEVEL: readonly string[] = [...FIXED_COLUMNS, OVERFLOW_FIELD];
/** Top-level keys that become the fixed columns (message, id, timestamp) rather than fields. */
export const CONSUMED_KEYS: ReadonlySet<string> = new Set<string>([...MESSAGE_KEYS, 'id', 'timestamp']);

export function normalizeEvent(
  raw: unknown,
  nowMicros: number,
  limits: Readonly<NormalizeLimits> = DEFAULT_NORMALIZE_LIMITS,
): NormalizeResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: `event must be a JSON object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}` };
  }
  const event = raw as Record<string, unknown>;
  const timestamp = parseTimestamp(event.timestamp) ?? nowMicros;
  if (timestamp > nowMicros + MAX_FUTURE_MICROS) {
    return { ok: false, error: `timestamp ${formatMicros(timestamp)} is more than one hour in the future` };
  }
  const fieldKeys = Object.keys(event).filter((key) => !CONSUMED_KEYS.has(key));
  if (fieldKeys.length > limits.maxKeysPerObject) {
    return { ok: false, error: `event has ${fieldKeys.length} top-level fields; the limit is ${limits.maxKeysPerObject}` };
  }
  const budget = new SizeBudget(limits.maxEventBytes);
  const event_message = eventMessage(event);
  try {
    budget.charge(byteLength(event_message));
    const fields = cleanEntries(event, fieldKeys, 1, limits, budget, RESERVED_TOP_LEVEL);
    return { ok: true, row: { id: eventId(event.id), timestamp, event_message, fields } };
  } catch (error) {
    if (error instanceof EventTooLarge) {
      return { ok: false, error: `event is larger than the limit of ${limits.maxEventBytes} bytes` };
    }
    throw error;
  }
}

export function eventMessage(event: Record<string, unknown>): string {
  for (const key of MESSAGE_KEYS) {
    const value = event[key];
    if (value === undefined || value === null) continue;
    return typeof value === 'string' ? wellFormed(value) : toJsonText(value);
  }
  return '';
}

export function eventId(id: unknown): string {
  if (typeof id === 'string' && id !== '') return wellFormed(id);
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return randomUUID();
}

// ---- timestamps ----

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)? ?([Zz]|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Microseconds since the epoch, or undefined when the value is not a timestamp we understand.
 * - ISO 8601 strings: date, optional time (`T` or space), optional fraction (digits beyond
 *   microseconds are truncated), offset `Z` / `±HH:MM` / `±HHMM` / `±HH` / `UTC`. Without an
 *   offset the time is UTC.
 * - Non-negative numbers and decimal strings, scaled by the digit count of the integer part:
 *   up to 10 digits seconds, 11–13 milliseconds, 14–16 microseconds, 17–19 nanoseconds (ranges
 *   rather than exact counts, so e.g. 9-digit seconds before 2001 still work). Fractions are fine.
 *   More than 19 digits, exponents, signs, NaN and Infinity are not timestamps.
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number') {
    // Below 1e21 String() never uses exponent notation, so the decimal path applies.
    return Number.isFinite(value) && value >= 0 && value < 1e21 ? parseEpochDecimal(String(value)) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return DECIMAL.test(text) ? parseEpochDecimal(text) : parseIso8601(text);
}

function parseEpochDecimal(text: string): number | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const integer = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = match[2] ?? '';
  const digitsPerSecond = integer.length <= 10 ? 0 : integer.length <= 13 ? 3 : integer.length <= 16 ? 6 : integer.length <= 19 ? 9 : undefined;
  if (digitsPerSecond === undefined) return undefined;
  // Exact decimal arithmetic: value = (integer.fraction) / 10^digitsPerSecond seconds.
  const units = BigInt(integer + fraction);
  const scaleUp = 10n ** BigInt(Math.max(0, 6 - digitsPerSecond));
  const scaleDown = 10n ** BigInt(fraction.length + Math.max(0, digitsPerSecond - 6));
  const micros = (units * scaleUp * 2n + scaleDown) / (scaleDown * 2n); // rounded half up
  return Number(micros);
}

function parseIso8601(text: string): number | undefined {
  const match = ISO_8601.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
  if (month! < 1 || month! > 12 || day! < 1 || hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year!, month! - 1, day!); // not Date.UTC: it maps years 0-99 to 1900-1999
  if (date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day!) return undefined; // e.g. 02-30
  date.setUTCHours(hour, minute, second);
  const fractionMicros = Number((match[7] ?? '').slice(0, 6).padEnd(6, '0'));
  const offset = offsetMinutes(match[8]);
  if (offset === undefined) return undefined;
  return date.getTime() * 1000 + fractionMicros - offset * 60_000_000;
}

function offsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || /^(z|utc|gmt)$/i.test(zone)) return 0;
  const [, sign, hours, minutes = '0'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) ?? [];
  if (sign === undefined || Number(hours) > 23 || Number(minutes) > 59) return undefined;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

function formatMicros(micros: number): string {
  const date = new Date(Math.floor(micros / 1000));
  return Number.isNaN(date.getTime()) ? `${micros}µs` : date.toISOString();
}

// ---- keys ----

const SAFE_KEY = /^[A-Za-z0-9_]+$/;

/**
 * A key made safe as a column name: characters outside [A-Za-z0-9_] (counted per code point)
 * become `_` and the key then gets one leading `_`; a key starting with a digit gets a leading `_`;
 * the empty key becomes `_`; at most MAX_KEY_BYTES bytes (all ASCII by then), truncated.
 */
export function safeKey(key: string): string {
  let safe: string;
  if (SAFE_KEY.test(key)) safe = /^[0-9]/.test(key) ? `_${key}` : key;
  else safe = `_${key.replace(/[^A-Za-z0-9_]/gu, '_')}`;
  return safe.slice(0, MAX_KEY_BYTES);
}

/**
 * Safe names for the keys of one object, in the same order, all distinct ignoring case (DuckDB and
 * BigQuery column and field names are case-insensitive) and distinct from `reserved`. Keys that
 * need no change keep their names, first come first served; the others take theirs in key order,
 * and a name already taken gets `_2`, `_3`, ... (the base shortened to keep within MAX_KEY_BYTES).
 * So `{"a-b":1,"a.b":2}` → `_a_b`, `_a_b_2`, and `{"Foo":1,"foo":2}` → `Foo`, `foo_2`.
 */
export function safeKeys(keys: readonly string[], reserved: readonly string[] = []): string[] {
  const safe = new Array<string>(keys.length);
  let unchanged = reserved.length === 0;
  let mixedCase = false;
  for (let i = 0; i < keys.length; i++) {
    const name = memoSafeKey(keys[i]!);
    safe[i] = name;
    if (name !== keys[i]) unchanged = false;
    else if (!mixedCase && HAS_UPPER.test(name)) mixedCase = true;
  }
  // The common case: nothing renamed, and distinct keys stay distinct when folded.
  if (unchanged && (!mixedCase || new Set(safe.map(foldCase)).size === safe.length)) return safe;
  return deduplicated(keys, safe, reserved);
}

const HAS_UPPER = /[A-Z]/;
const foldCase = (name: string): string => name.toLowerCase();

function deduplicated(keys: readonly string[], safe: string[], reserved: readonly string[]): string[] {
  const taken = new Set(reserved.map(foldCase));
  const kept: Array<string | undefined> = [];
  for (let i = 0; i < safe.length; i++) {
    const name = safe[i]!;
    const keep = name === keys[i] && !taken.has(foldCase(name));
    if (keep) taken.add(foldCase(name));
    kept.push(keep ? name : undefined);
  }
  // Per base, the suffix to try next: names only ever get taken, so the ones already tried stay
  // taken. Without it, a thousand keys that all sanitise to one name cost half a million lookups.
  const nextSuffix = new Map<string, number>();
  return kept.map((name, i) => {
    if (name !== undefined) return name;
    const base = safe[i]!;
    let n = nextSuffix.get(foldCase(base)) ?? 1; // 1: the base itself
    let unique = n === 1 ? base : suffixed(base, n);
    while (taken.has(foldCase(unique))) unique = suffixed(base, ++n);
    nextSuffix.set(foldCase(base), n + 1);
    taken.add(foldCase(unique));
    return unique;
  });
}

const suffixed = (base: string, n: number): string => `${base.slice(0, MAX_KEY_BYTES - `_${n}`.length)}_${n}`;

/** Event keys repeat from one event to the next, so their safe forms are remembered (bounded). */
const safeKeyMemo = new Map<string, string>();
const SAFE_KEY_MEMO_SIZE = 10_000;

export function memoSafeKey(key: string): string {
  let safe = safeKeyMemo.get(key);
  if (safe === undefined) {
    safe = safeKey(key);
    if (safeKeyMemo.size < SAFE_KEY_MEMO_SIZE) safeKeyMemo.set(key, safe);
  }
  return safe;
}

// ---- values ----

class EventTooLarge extends Error {}

/** Counts the approximate JSON size of what is being stored and stops the walk past the limit. */
class SizeBudget {
  private used = 0;
  constructor(private readonly limit: number) {}
  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) throw new EventTooLarge();
  }
}

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** ES2024's String.prototype.isWellFormed / toWellFormed: in Node 20, missing from lib es2022. */
type Es2024String = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * `text` with every lone surrogate replaced by U+FFFD, so it has a UTF-8 encoding. The native
 * check runs on every string of every event; a regular expression here cost 2-3% of ingestion.
 */
export function wellFormed(text: string): string {
  const es2024 = text as Es2024String;
  return es2024.isWellFormed() ? text : es2024.toWellFormed();
}

/** The cleaned entries of `object` for `keys`, under their safe names, as a plain object. */
function cleanEntries(
  object: Record<string, unknown>,
  keys: readonly string[],
  depth: number,
  limits: Readonly<NormalizeLimits>,
  budget: SizeBudget,
  reserved: readonly string[] = [],
): { [key: string]: JsonValue } {
  const names = safeKeys(keys, reserved);
  // Built by assignment rather than Object.fromEntries: no [key, value] pair per field, and
  // events of one shape share V8's hidden classes.
  const cleaned: { [key: string]: JsonValue } = {};
  for (let i = 0; i < keys.length; i++) {
    const value = cleanValue(object[keys[i]!], depth, limits, budget);
    if (value === undefined) continue;
    const name = names[i]!;
    budget.charge(name.length + 4); // quotes, colon, comma
    // Assigning "__proto__" would set the prototype; defined, it stays an ordinary key.
    if (name === '__proto__') Object.defineProperty(cleaned, name, { value, enumerable: true, writable: true, configurable: true });
    else cleaned[name] = value;
  }
  return cleaned;
}

function isEmpty(object: object): boolean {
  for (const _ in object) return false;
  return true;
}

function cleanValue(value: unknown, depth: number, limits: Readonly<NormalizeLimits>, budget: SizeBudget): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
      budget.charge(byteLength(value) + 2);
      return wellFormed(value);
    case 'boolean':
      budget.charge(5);
      return value;
    case 'number':
      budget.charge(8);
      return Number.isFinite(value) ? value : String(value);
    case 'object':
      if (value === null) return undefined;
      return cleanContainer(value, depth, limits, budget);
    default:
      return undefined; // undefined, and types JSON cannot carry
  }
}

function cleanContainer(value: object, depth: number, limits: Readonly<NormalizeLimits>, budget: SizeBudget): JsonValue | undefined {
  const keys = Array.isArray(value) ? undefined : Object.keys(value);
  if (depth > limits.maxDepth || (keys && keys.length > limits.maxKeysPerObject)) {
    const text = toJsonText(value);
    budget.charge(byteLength(text) + 2);
    return text;
  }
  budget.charge(2);
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    for (const item of value) {
      const cleaned = cleanValue(item, depth + 1, limits, budget);
      if (cleaned !== undefined) items.push(cleaned);
    }
    return items.length > 0 ? items : undefined;
  }
  const cleaned = cleanEntries(value as Record<string, unknown>, keys!, depth + 1, limits, budget);
  return isEmpty(cleaned) ? undefined : cleaned;
}
