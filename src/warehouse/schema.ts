import { OVERFLOW_FIELD, type FieldType, type JsonValue, type RecordFields, type ScalarType } from './types.ts';

/**
 * Schema inference for BigQuery-shaped storage. Types only ever widen, so data that arrives in a
 * new shape is never refused: int joins float as float; any other disagreement becomes a string
 * column holding the value's JSON text.
 */

const STRING: ScalarType = { kind: 'string' };

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && !Array.isArray(value);
}

const BOOL: ScalarType = { kind: 'bool' };
const INT: ScalarType = { kind: 'int' };
const FLOAT: ScalarType = { kind: 'float' };

function scalarType(value: string | number | boolean): ScalarType {
  if (typeof value === 'string') return STRING;
  if (typeof value === 'boolean') return BOOL;
  return Number.isSafeInteger(value) ? INT : FLOAT;
}

/** The type of one value, or undefined when it says nothing (an empty array). */
export function inferType(value: JsonValue): FieldType | undefined {
  if (!Array.isArray(value)) {
    return isObject(value) ? { kind: 'record', fields: inferFields(value) } : scalarType(value);
  }
  let merged: FieldType | undefined;
  for (const item of value) {
    const itemType = Array.isArray(item) ? STRING : inferType(item);
    if (itemType) merged = merged ? mergeTypes(merged, itemType) : itemType;
  }
  if (!merged || merged.kind === 'record') return merged;
  if (merged.kind === 'list') return STRING;
  return { kind: 'list', element: merged };
}

function inferFields(object: { [key: string]: JsonValue }): RecordFields {
  const fields = new Map<string, FieldType>();
  for (const [key, value] of Object.entries(object)) {
    const type = inferType(value);
    if (type) fields.set(key, type);
  }
  return fields;
}

export function mergeTypes(a: FieldType, b: FieldType): FieldType {
  if (a.kind === b.kind) {
    if (a.kind === 'record' && b.kind === 'record') return { kind: 'record', fields: mergeFields(a.fields, b.fields) };
    if (a.kind === 'list' && b.kind === 'list') {
      const element = mergeTypes(a.element, b.element);
      return element === a.element ? a : { kind: 'list', element: element as ScalarType };
    }
    return a;
  }
  if ((a.kind === 'int' && b.kind === 'float') || (a.kind === 'float' && b.kind === 'int')) return { kind: 'float' };
  return STRING;
}

/**
 * The stored name of a field: column and struct field names are case-insensitive in the engines
 * (and in BigQuery), so `userId` arriving after `userid` lands in the same field.
 */
export function fieldName(fields: ReadonlyMap<string, unknown>, name: string): string {
  if (fields.has(name)) return name;
  const lower = name.toLowerCase();
  for (const existing of fields.keys()) if (existing.toLowerCase() === lower) return existing;
  return name;
}

/** Merge `extra` into `base`; returns `base` itself when nothing changed, so callers can test identity. */
export function mergeFields(base: RecordFields, extra: RecordFields): RecordFields {
  let result: Map<string, FieldType> | undefined;
  for (const [incoming, type] of extra) {
    const name = fieldName(result ?? base, incoming);
    const current = (result ?? base).get(name);
    const merged = current ? mergeTypes(current, type) : type;
    if (current && sameType(current, merged)) continue;
    result ??= new Map(base);
    result.set(name, merged);
  }
  return result ?? base;
}

export function sameType(a: FieldType, b: FieldType): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'list' && b.kind === 'list') return sameType(a.element, b.element);
  if (a.kind === 'record' && b.kind === 'record') {
    if (a.fields.size !== b.fields.size) return false;
    for (const [name, type] of a.fields) {
      const other = b.fields.get(name);
      if (!other || !sameType(type, other)) return false;
    }
  }
  return true;
}

/** Widen `schema` to hold every top-level field of `rows`. */
export function schemaForRows(schema: RecordFields, rows: ReadonlyArray<{ fields: { [key: string]: JsonValue } }>): RecordFields {
  let result = schema;
  for (const row of rows) if (!fitsFields(row.fields, result)) result = mergeFields(result, inferFields(row.fields));
  return result;
}

/**
 * Whether merging `value` into `type` would leave it unchanged: the same answer as
 * `sameType(mergeTypes(type, inferType(value)), type)`, without building any type. Nearly every
 * event fits its source's schema, so this is the ingest hot path.
 */
export function fits(value: JsonValue, type: FieldType): boolean {
  if (type.kind === 'string') return true;
  if (!Array.isArray(value)) {
    if (isObject(value)) return type.kind === 'record' && fitsFields(value, type.fields);
    return fitsScalar(value, type);
  }
  if (value.length === 0) return true;
  if (value.every((item) => !Array.isArray(item) && isObject(item))) {
    return type.kind === 'record' && value.every((item) => fitsFields(item as { [key: string]: JsonValue }, type.fields));
  }
  if (type.kind !== 'list') return false;
  // A nested array or an object among scalars makes the element type a string.
  return value.every((item) => (typeof item === 'object' ? type.element.kind === 'string' : fitsScalar(item, type.element)));
}

function fitsScalar(value: string | number | boolean, type: FieldType): boolean {
  const kind = scalarType(value).kind;
  return kind === type.kind || type.kind === 'string' || (kind === 'int' && type.kind === 'float');
}

/** Whether every field of a row fits `fields` as it is, so storing it changes no column. */
export function fitsFields(object: { [key: string]: JsonValue }, fields: RecordFields): boolean {
  for (const key in object) {
    const value = object[key]!;
    const type = fields.get(key) ?? fields.get(fieldName(fields, key));
    if (type ? !fits(value, type) : inferType(value) !== undefined) return false;
  }
  return true;
}

/**
 * Whether `next` only adds to `base`: every field of `base` is still there with the same kind (a
 * record may have gained fields). A value shaped for `base` by `conform` is then shaped for `next`
 * too; a scalar widened in between (int to string, say) would need shaping again.
 */
export function extendsFields(base: RecordFields, next: RecordFields): boolean {
  if (base === next) return true;
  for (const [name, type] of base) {
    const other = next.get(name);
    if (!other || !extendsType(type, other)) return false;
  }
  return true;
}

function extendsType(base: FieldType, next: FieldType): boolean {
  if (base.kind !== next.kind) return false;
  if (base.kind === 'list' && next.kind === 'list') return base.element.kind === next.element.kind;
  if (base.kind === 'record' && next.kind === 'record') return extendsFields(base.fields, next.fields);
  return true;
}

/** Fields of a schema, nested ones included: what a field limit counts. */
export function countFields(fields: RecordFields): number {
  let count = 0;
  for (const type of fields.values()) count += 1 + (type.kind === 'record' ? countFields(type.fields) : 0);
  return count;
}

export interface SchemaLimits {
  /** Most fields a source may have, nested ones included (the overflow field not counted). */
  maxFields: number;
}

type Row = { fields: { [key: string]: JsonValue } };

/**
 * The rows as they will be stored, and the schema that holds them, keeping two promises to the
 * warehouse: a source never grows past `limits.maxFields` fields, and a record or list column is
 * never widened into text (that would rewrite every stored event's nested data as a string and
 * break every query that unnests it). A value that would break either promise is not dropped: it
 * moves to OVERFLOW_FIELD, a JSON object text mapping its path to the value. Paths use the stored
 * field names, `.` between levels and `[i]` for the i-th element of an array of objects, e.g.
 * `{"metadata.request[1].extra": {"a": 1}}`. Scalar disagreements still widen in place (int to
 * float to string), as `mergeTypes` says. Rows that fit are returned as they are.
 */
export function planRows<R extends Row>(schema: RecordFields, rows: readonly R[], limits: SchemaLimits): { schema: RecordFields; rows: R[] } {
  let current = schema;
  // Built on the first row that does not fit: the names and kinds `admit` checks against.
  let shape: ShapeFields | undefined;
  let budget = 0;
  const planned = rows.map((row) => {
    if (fitsFields(row.fields, current)) return row;
    if (!shape) {
      shape = shapeFields(current);
      budget = limits.maxFields - countFields(current);
    }
    const refused: Refusals = new Map();
    const incoming = inferFields(row.fields);
    budget = admit(incoming, shape, budget, refused);
    if (refused.size === 0) {
      current = mergeFields(current, incoming);
      return row;
    }
    const overflow: { [path: string]: JsonValue } = {};
    const fields = withoutRefused(row.fields, refused, '', overflow);
    fields[OVERFLOW_FIELD] = JSON.stringify(overflow);
    current = mergeFields(current, inferFields(fields));
    return { ...row, fields };
  });
  return { schema: current, rows: planned };
}

/** What `planRows` tracks of a schema: names, nesting and whether a field is a record, a list or a scalar. */
type Shape = { kind: 'record'; fields: ShapeFields } | { kind: 'list' } | { kind: 'scalar' };
type ShapeFields = Map<string, Shape>;
/** Field names (as the row spells them) whose values go to the overflow field: all of it, or some of its fields. */
type Refusals = Map<string, Refusals | true>;

const LIST_SHAPE: Shape = { kind: 'list' };
const SCALAR_SHAPE: Shape = { kind: 'scalar' };

function shapeOf(type: FieldType): Shape {
  if (type.kind === 'record') return { kind: 'record', fields: shapeFields(type.fields) };
  return type.kind === 'list' ? LIST_SHAPE : SCALAR_SHAPE;
}

function shapeFields(fields: RecordFields): ShapeFields {
  return new Map([...fields].map(([name, type]) => [name, shapeOf(type)]));
}

/** Add `incoming` to `shape` within `budget` new fields; what cannot be added is noted in `refused`. Returns the budget left. */
function admit(incoming: RecordFields, shape: ShapeFields, budget: number, refused: Refusals): number {
  for (const [name, type] of incoming) {
    const existing = shape.get(fieldName(shape, name));
    if (!existing) {
      if (budget < 1) {
        refused.set(name, true);
        continue;
      }
      if (type.kind !== 'record') {
        budget--;
        shape.set(name, shapeOf(type));
        continue;
      }
      // A new record is admitted field by field, so a wide one fills the budget instead of being
      // refused whole; one left with no field at all is refused whole (a record needs a field).
      const record: Shape = { kind: 'record', fields: new Map() };
      shape.set(name, record);
      const inner: Refusals = new Map();
      const left = admit(type.fields, record.fields, budget - 1, inner);
      if (record.fields.size === 0) {
        shape.delete(name);
        refused.set(name, true);
        continue;
      }
      budget = left;
      if (inner.size > 0) refused.set(name, inner);
    } else if (existing.kind === 'record') {
      if (type.kind === 'record') budget = admitNested(type.fields, existing.fields, budget, refused, name);
      else refused.set(name, true);
    } else if (existing.kind === 'list' && type.kind !== 'list') {
      refused.set(name, true);
    }
    // A scalar column takes any value: other scalars widen it, containers are kept as JSON text.
  }
  return budget;
}

function admitNested(incoming: RecordFields, shape: ShapeFields, budget: number, refused: Refusals, name: string): number {
  const inner: Refusals = new Map();
  const left = admit(incoming, shape, budget, inner);
  if (inner.size > 0) refused.set(name, inner);
  return left;
}

/**
 * A copy of `object` without the refused values, which are added to `overflow` under their paths.
 * Names match ignoring case, as they did when the elements of an array were merged into one type.
 */
function withoutRefused(
  object: { [key: string]: JsonValue },
  refused: Refusals,
  path: string,
  overflow: { [path: string]: JsonValue },
): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = { ...object };
  const byFoldedName = new Map([...refused].map(([name, refusal]) => [name.toLowerCase(), refusal]));
  for (const key of Object.keys(out)) {
    const refusal = byFoldedName.get(key.toLowerCase());
    if (refusal === undefined) continue;
    const value = out[key]!;
    if (refusal === true) {
      overflow[`${path}${key}`] = value;
      delete out[key];
    } else if (Array.isArray(value)) {
      out[key] = value.map((item, i) => (isObject(item) ? withoutRefused(item, refusal, `${path}${key}[${i}].`, overflow) : item));
    } else if (isObject(value)) {
      out[key] = withoutRefused(value, refusal, `${path}${key}.`, overflow);
    }
  }
  return out;
}

/**
 * Shape a value to its column type for writing: objects become one-element record lists, and a
 * value whose shape disagrees with a widened column is written as JSON text.
 */
export function conform(value: JsonValue, type: FieldType): unknown {
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'record': {
      const items = Array.isArray(value) ? value : [value];
      return items.filter(isObject).map((item) => conformRecord(item, type.fields));
    }
    case 'list':
      return (Array.isArray(value) ? value : [value]).map((item) => conform(item, type.element));
    default:
      return value;
  }
}

function conformRecord(object: { [key: string]: JsonValue }, fields: RecordFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const name = fieldName(fields, key);
    const type = fields.get(name);
    if (type) out[name] = conform(value, type);
  }
  return out;
}

/** Describe a schema as plain JSON for the schema endpoint: BigQuery type names, records nested. */
export function describeFields(fields: RecordFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, type] of fields) out[name] = describeType(type);
  return out;
}

const BIGQUERY_NAMES = { bool: 'BOOL', int: 'INT64', float: 'FLOAT64', string: 'STRING', timestamp: 'TIMESTAMP' } as const;

function describeType(type: FieldType): unknown {
  if (type.kind === 'record') return { type: 'RECORD', mode: 'REPEATED', fields: describeFields(type.fields) };
  if (type.kind === 'list') return { type: BIGQUERY_NAMES[type.element.kind], mode: 'REPEATED' };
  return { type: BIGQUERY_NAMES[type.kind], mode: 'NULLABLE' };
}
