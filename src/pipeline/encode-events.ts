/**
 * The fast path of ingestion: a request's raw events straight to staged lines (the form the
 * journal keeps and a fold loads, see warehouse/staged-rows.ts) in one walk per event that checks
 * it and notes what to change. Before, every event was normalised into a new object
 * (normalize.ts), checked against its source's schema (`fitsFields`), shaped in place
 * (`shapeMembers`) and serialised: four walks and a copy of every value, about half of the main
 * thread's time per event.
 *
 * An event takes this path when it fits its source's schema as normalisation would leave it:
 * every key's name (as is, or as normalisation renames it: `x-request-id` becomes
 * `_x_request_id`) a column, values of their column's kind, no container past the depth or key
 * limits, well within the size limit. The walk collects the few changes shaping makes (a lone
 * object becomes a list of one, nulls go, a number in a string column becomes its text, keys take
 * their new names); they are applied once the whole event passed, and V8's JSON.stringify writes
 * the line. It is the line `stagedLine(normalizeEvent(event).row, fields)` wrote, byte for byte
 * (the tests compare them). Any other event is normalised as before and planned at the fold: a new
 * field, a value that widens a column, an event to refuse with its per-event error.
 */
import type { RawEvent, RawEventResult } from '../ingest/adapter.ts';
import { stagedRows } from '../warehouse/staged-rows.ts';
import type { FieldType, LogRow, RecordFields, ScalarType, StagedRows } from '../warehouse/types.ts';
import {
  CONSUMED_KEYS,
  DEFAULT_NORMALIZE_LIMITS,
  eventId,
  eventMessage,
  MAX_FUTURE_MICROS,
  memoSafeKey,
  normalizeEvent,
  parseTimestamp,
  RESERVED_TOP_LEVEL,
  safeKeys,
  type NormalizeLimits,
} from './normalize.ts';

export interface EncodedEvents {
  /** Events on the fast path, as lines for the schema they were checked against. */
  staged: StagedRows | undefined;
  /** The other events, normalised. */
  rows: LogRow[];
  /** Events that cannot be stored, by their index in the request. */
  errors: Array<{ index: number; message: string }>;
}

/**
 * A request's events for a source whose schema is `fields` (undefined: no schema to check
 * against, so every event is normalised).
 */
export function encodeEvents(
  events: readonly RawEventResult[],
  fields: RecordFields | undefined,
  nowMicros: number,
  limits: Readonly<NormalizeLimits> = DEFAULT_NORMALIZE_LIMITS,
): EncodedEvents {
  const shape = fields && shapeOf(fields);
  const rows: LogRow[] = [];
  const errors: EncodedEvents['errors'] = [];
  let text = '';
  let count = 0;
  let longest = 0;
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    if (!event.ok) {
      errors.push({ index, message: event.error });
      continue;
    }
    const line = shape && encodeEvent(event.event, shape, nowMicros, limits);
    if (line !== undefined) {
      if (line.length > longest) longest = line.length;
      text = count++ === 0 ? line : `${text}\n${line}`;
      continue;
    }
    const normalized = normalizeEvent(event.event, nowMicros, limits);
    if (normalized.ok) rows.push(normalized.row);
    else errors.push({ index, message: normalized.error });
  }
  return { staged: count === 0 ? undefined : stagedRows(text, count, longest, fields!), rows, errors };
}

/** A schema as the fast path reads it: per record, only the names an event's key keeps as they are. */
type Shape = { kind: ScalarType['kind'] } | { kind: 'list'; element: ScalarType } | { kind: 'record'; fields: ShapeFields };
type ShapeFields = ReadonlyMap<string, Shape>;

const shapes = new WeakMap<RecordFields, ShapeFields>();

/** Cached per schema object: a source's schema is replaced, never changed, when it widens. */
function shapeOf(fields: RecordFields): ShapeFields {
  let shape = shapes.get(fields);
  if (!shape) {
    shape = shapeFields(fields, RESERVED_TOP_LEVEL);
    shapes.set(fields, shape);
  }
  return shape;
}

/**
 * Names normalisation keeps as they are: safe, and at the top not a fixed column in another
 * case. A provisioned schema may hold a name no event key keeps (it was read from a sample).
 */
function shapeFields(fields: RecordFields, reserved: readonly string[] = []): ShapeFields {
  const shape = new Map<string, Shape>();
  for (const [name, type] of fields) {
    if (memoSafeKey(name) !== name || reserved.includes(name.toLowerCase())) continue;
    shape.set(name, type.kind === 'record' ? { kind: 'record', fields: shapeFields(type.fields) } : (type as Exclude<FieldType, { kind: 'record' }>));
  }
  return shape;
}

/** Thrown (a symbol: no stack to capture) when the event being walked leaves the fast path. */
const SLOW_PATH = Symbol('slow path');
const slowPath = (): never => {
  throw SLOW_PATH;
};

// The walk's state for the event at hand. What normalisation would charge against the event size
// limit is counted with every string by its UTF-16 length (its UTF-8 size is at most three times that).
let charged = 0;
let stringChars = 0;
/** The changes to make once the event passed: `changed[i][changedKeys[i]] = changedValues[i]`. */
const changed: Array<Record<string, unknown>> = [];
const changedKeys: string[] = [];
const changedValues: unknown[] = [];

/** Objects whose keys normalisation renames: `renamed[i]`'s `renamedKeys[i]` become `renamedAs[i]`, once the changes are made. */
const renamed: Array<Record<string, unknown>> = [];
const renamedKeys: string[][] = [];
const renamedAs: string[][] = [];

function change(object: Record<string, unknown>, key: string, value: unknown): void {
  changed.push(object);
  changedKeys.push(key);
  changedValues.push(value);
}

function encodeEvent(event: RawEvent, shape: ShapeFields, nowMicros: number, limits: Readonly<NormalizeLimits>): string | undefined {
  changed.length = changedKeys.length = changedValues.length = 0;
  renamed.length = renamedKeys.length = renamedAs.length = 0;
  const timestamp = parseTimestamp(event.timestamp) ?? nowMicros;
  if (timestamp > nowMicros + MAX_FUTURE_MICROS) return undefined; // refused, in normalisation's words
  const message = eventMessage(event);
  charged = stringChars = message.length;
  try {
    checkMembers(event, shape, 1, limits, true);
  } catch (error) {
    if (error === SLOW_PATH) return undefined;
    throw error;
  }
  if (charged + 2 * stringChars > limits.maxEventBytes) return undefined; // maybe too large: normalisation decides
  const head = `{"id":${JSON.stringify(eventId(event.id))},"timestamp":${timestamp},"event_message":${JSON.stringify(message)}`;
  for (let i = 0; i < changed.length; i++) setMember(changed[i]!, changedKeys[i]!, changedValues[i]);
  for (let i = 0; i < renamed.length; i++) renameMembers(renamed[i]!, renamedKeys[i]!, renamedAs[i]!);
  for (const key of CONSUMED_KEYS) if (event[key] !== undefined) event[key] = undefined;
  const body = JSON.stringify(event);
  return body.length === 2 ? `${head}}` : `${head},${body.slice(1)}`;
}

/**
 * Gives `object`'s `keys` their new names, in the same order (what a stored event's text follows):
 * every member is taken out, the last first (which keeps V8's fast layout of the object), and the
 * kept ones are put back. The event's own message, id and timestamp go too: its line has them already.
 */
function renameMembers(object: Record<string, unknown>, keys: readonly string[], names: readonly string[]): void {
  const values = keys.map((key) => object[key]);
  const members = Object.keys(object);
  for (let i = members.length - 1; i >= 0; i--) delete object[members[i]!];
  for (let i = 0; i < keys.length; i++) if (values[i] !== undefined) setMember(object, names[i]!, values[i]);
}

/** Assigning "__proto__" would set the prototype; defined, it stays an ordinary key. */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/**
 * Checks the members of an object (the event itself at the top, its consumed keys skipped)
 * against `shape`; `depth` is that of the members' values. Returns how many are kept.
 */
function checkMembers(object: Record<string, unknown>, shape: ShapeFields, depth: number, limits: Readonly<NormalizeLimits>, top = false): number {
  const changesBefore = changed.length;
  const renamesBefore = renamed.length;
  const chargedBefore = charged;
  const charsBefore = stringChars;
  let keys = 0;
  let kept = 0;
  let dropped: string[] | undefined;
  for (const key in object) {
    if (top && CONSUMED_KEYS.has(key)) continue;
    if (++keys > limits.maxKeysPerObject) slowPath();
    const value = object[key];
    const type = shape.get(key);
    if (type === undefined) {
      if (memoSafeKey(key) !== key) {
        // Rare: the object is walked again, its members named as normalisation names them.
        changed.length = changedKeys.length = changedValues.length = changesBefore;
        renamed.length = renamedKeys.length = renamedAs.length = renamesBefore;
        charged = chargedBefore;
        stringChars = charsBefore;
        return checkRenamedMembers(object, shape, depth, limits, top);
      }
      // A key with no column is only on the fast path when its value is dropped anyway; it still
      // takes its name first, so a kept key equal to it ignoring case would be renamed.
      if (value !== null) slowPath();
      (dropped ??= []).push(key.toLowerCase());
      change(object, key, undefined);
    } else if (value === null) {
      change(object, key, undefined);
    } else if (checkValue(object, key, value, type, depth, limits)) {
      kept++;
      charged += key.length + 4;
    }
  }
  if (dropped !== undefined && shadowed(object, shape, dropped)) slowPath();
  return kept;
}

/**
 * `checkMembers` for an object with a key normalisation sanitises (`x-request-id`, `http.method`):
 * every key takes the name `safeKeys` gives it, which also settles which of two keys that meet
 * ignoring case keeps its name, and the names are put in place once the event has passed.
 */
function checkRenamedMembers(object: Record<string, unknown>, shape: ShapeFields, depth: number, limits: Readonly<NormalizeLimits>, top: boolean): number {
  const keys = top ? Object.keys(object).filter((key) => !CONSUMED_KEYS.has(key)) : Object.keys(object);
  if (keys.length > limits.maxKeysPerObject) slowPath();
  const names = safeKeys(keys, top ? RESERVED_TOP_LEVEL : []);
  let kept = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = object[key];
    if (value === null) {
      change(object, key, undefined);
      continue;
    }
    const type = shape.get(names[i]!);
    if (type === undefined) return slowPath(); // a new field
    if (checkValue(object, key, value, type, depth, limits)) {
      kept++;
      charged += names[i]!.length + 4;
    }
  }
  renamed.push(object);
  renamedKeys.push(keys);
  renamedAs.push(names);
  return kept;
}

function shadowed(object: Record<string, unknown>, shape: ShapeFields, dropped: string[]): boolean {
  for (const key in object) if (shape.has(key) && dropped.includes(key.toLowerCase())) return true;
  return false;
}

/** Whether `object[key]` (not null) is kept: checked against its column, its changes noted. */
function checkValue(object: Record<string, unknown>, key: string, value: unknown, type: Shape, depth: number, limits: Readonly<NormalizeLimits>): boolean {
  switch (type.kind) {
    case 'record':
      return checkRecords(object, key, value, type.fields, depth, limits);
    case 'list':
      return checkList(object, key, value, type.element, depth, limits);
    default: {
      const stored = checkScalar(value, type.kind);
      if (stored !== value) change(object, key, stored);
      return true;
    }
  }
}

/** The value a scalar column stores for `value`: itself, its text in a string column, or well-formed text. */
function checkScalar(value: unknown, kind: ScalarType['kind']): unknown {
  switch (typeof value) {
    case 'string':
      if (kind !== 'string') slowPath();
      charged += value.length + 2;
      stringChars += value.length;
      return (value as string & { isWellFormed(): boolean }).isWellFormed() ? value : (value as string & { toWellFormed(): string }).toWellFormed();
    case 'number':
      if (!Number.isFinite(value) || kind === 'bool' || kind === 'timestamp' || (kind === 'int' && !Number.isSafeInteger(value))) slowPath();
      charged += 8;
      return kind === 'string' ? String(value) : value;
    case 'boolean':
      if (kind !== 'bool' && kind !== 'string') slowPath();
      charged += 5;
      return kind === 'string' ? String(value) : value;
    default:
      return slowPath(); // a container where a scalar is stored: its JSON text, as normalisation cleans it
  }
}

function checkList(object: Record<string, unknown>, key: string, value: unknown, element: ScalarType, depth: number, limits: Readonly<NormalizeLimits>): boolean {
  if (!Array.isArray(value) || depth > limits.maxDepth) slowPath();
  charged += 2;
  // Copied only when an item is dropped or stored differently.
  let items: unknown[] | undefined;
  for (let i = 0; i < (value as unknown[]).length; i++) {
    const item = (value as unknown[])[i];
    const stored = item === null ? undefined : checkScalar(item, element.kind);
    if (stored !== item && items === undefined) items = (value as unknown[]).slice(0, i);
    if (items !== undefined && stored !== undefined) items.push(stored);
  }
  const kept = items ?? (value as unknown[]);
  if (kept !== value || kept.length === 0) change(object, key, kept.length === 0 ? undefined : kept);
  return kept.length > 0;
}

/** A record column holds a list of records: a lone object becomes a list of one, empty records go. */
function checkRecords(object: Record<string, unknown>, key: string, value: unknown, fields: ShapeFields, depth: number, limits: Readonly<NormalizeLimits>): boolean {
  if (typeof value !== 'object' || value === null || depth > limits.maxDepth) slowPath();
  charged += 2;
  if (!Array.isArray(value)) {
    const kept = checkMembers(value as Record<string, unknown>, fields, depth + 1, limits) > 0;
    change(object, key, kept ? [value] : undefined);
    return kept;
  }
  let items: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    let kept = false;
    if (item !== null) {
      if (typeof item !== 'object' || Array.isArray(item) || depth + 1 > limits.maxDepth) slowPath();
      charged += 2;
      kept = checkMembers(item as Record<string, unknown>, fields, depth + 2, limits) > 0;
    }
    if (!kept && items === undefined) items = value.slice(0, i);
    if (kept && items !== undefined) items.push(item);
  }
  const kept = items ?? value;
  if (kept !== value || kept.length === 0) change(object, key, kept.length === 0 ? undefined : kept);
  return kept.length > 0;
}
