import {
  type DuckDBResultReader,
  type DuckDBType,
  DuckDBListType,
  DuckDBStructType,
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBValue,
  type DuckDBValueConverter,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
} from '@duckdb/node-api';
import { exactInteger, stringifyExact } from '../exact-json.ts';
import { jsonResult } from '../json-results.ts';
import type { ResultRow } from '../types.ts';
import { quoteString } from './sql-generator.ts';
import { quoteIdent } from './types.ts';

/**
 * Query results in the wire shape Logflare clients expect: TIMESTAMP (TIMESTAMPTZ here) as integer
 * microseconds, DATETIME (plain TIMESTAMP here) as an ISO string without zone, integers and decimals
 * as JSON numbers, records as arrays of objects, JSON as JSON (json-results.ts).
 */

type Wire = unknown;

function microsOf(value: DuckDBValue): number {
  return Number((value as DuckDBTimestampTZValue | DuckDBTimestampValue).micros);
}

function isoWithoutZone(value: DuckDBValue): string {
  const micros = BigInt((value as DuckDBTimestampValue).micros);
  const millis = Number(micros / 1000n);
  const fraction = String(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n).padStart(6, '0');
  const seconds = new Date(millis).toISOString().slice(0, 19);
  return fraction === '000000' ? seconds : `${seconds}.${fraction}`;
}

const toNumber = (value: DuckDBValue) => Number(typeof value === 'object' && value !== null ? value.toString() : value);

const wireConverter: DuckDBValueConverter<Wire> = (value, type, converter) => {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP_TZ:
      return microsOf(value);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_NS:
      return type.typeId === DuckDBTypeId.TIMESTAMP ? isoWithoutZone(value) : String(value);
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.DECIMAL:
      return toNumber(value);
    default:
      return (JsonDuckDBValueConverter as DuckDBValueConverter<Wire>)(value, type, converter);
  }
};

export const resultConverter = wireConverter;

/** The wire converter, integers beyond 2^53 kept exact as bigint (for stringifyExact). */
const exactConverter: DuckDBValueConverter<Wire> = (value, type, converter) => {
  if (value !== null && value !== undefined && INTEGER_TYPES.has(type.typeId)) return exactInteger(value as bigint);
  return wireConverter(value, type, converter);
};

const INTEGER_TYPES: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT]);

/** Scalar types whose JSON from DuckDB's to_json reads back (JSON.parse) as the converter above makes them, by typeof() name. */
const JSON_EXACT_SCALARS = new Map([
  ['BOOLEAN', DuckDBTypeId.BOOLEAN],
  ['TINYINT', DuckDBTypeId.TINYINT],
  ['SMALLINT', DuckDBTypeId.SMALLINT],
  ['INTEGER', DuckDBTypeId.INTEGER],
  ['BIGINT', DuckDBTypeId.BIGINT],
  ['DOUBLE', DuckDBTypeId.DOUBLE],
  ['VARCHAR', DuckDBTypeId.VARCHAR],
]);
const JSON_EXACT_IDS = new Set(JSON_EXACT_SCALARS.values());

/** A list or record made only of JSON-exact scalars (JSON itself is a VARCHAR with an alias: not exact). */
function nestedJsonExact(type: DuckDBType, depth = 0): boolean {
  if (type.alias) return false;
  if (type instanceof DuckDBListType) return nestedJsonExact(type.valueType, depth + 1);
  if (type instanceof DuckDBStructType) return type.entryTypes.every((entry) => nestedJsonExact(entry, depth + 1));
  return depth > 0 && JSON_EXACT_IDS.has(type.typeId);
}

/**
 * Whether a type as DuckDB's typeof() prints it (`STRUCT(a BIGINT, "b c" VARCHAR[])[]`) is a
 * list or record made only of JSON-exact scalars. A word after `(` or `,` names a field; every
 * other word must be STRUCT or such a scalar. Unsure means no: the caller then converts as usual.
 */
export function nestedAndJsonExact(type: string): boolean {
  if (!/[[(]/.test(type)) return false;
  let fieldNext = false;
  for (const [token] of type.matchAll(/"(?:[^"]|"")*"|[A-Za-z_]\w*|\[\]|[(),]|\s+|./g)) {
    if (/^\s+$/.test(token) || token === '[]') continue;
    if (token === '(' || token === ',') fieldNext = true;
    else if (token === ')') fieldNext = false;
    else if (fieldNext) fieldNext = false;
    else if (token !== 'STRUCT' && !JSON_EXACT_SCALARS.has(token)) return false;
  }
  return true;
}

export type ReadUntil = (sql: string, maxRows: number, params: Record<string, string | null>) => Promise<DuckDBResultReader>;

/**
 * How a top-level column reads in the wire shape through DuckDB's to_json: as it is, TIMESTAMPTZ
 * as epoch microseconds, TIMESTAMP as the ISO text of `isoWithoutZone`.
 */
type WireForm = 'as-is' | 'micros' | 'iso';

/** What a statement's first run showed; each part is dropped if DuckDB's JSON ever fails it. */
interface Notes {
  /** Columns whose JSON reads back exactly (JSON.parse) as the converter makes them. */
  nested: string[];
  /** Every column's wire form, when each has one: the whole row can come as JSON. */
  wire?: Array<{ name: string; form: WireForm }>;
}

/**
 * Query results, with nested columns serialised by DuckDB. Converting lists of records value by
 * value here costs ~35 µs a row (logs.all's 100 rows of metadata: 3.7 ms, a fifth of its query);
 * DuckDB's to_json plus JSON.parse take 0.9 ms, and whole rows as JSON, passed on as text
 * (readJson), less still. Which columns are nested is only known from a result, so the first run
 * of a statement converts as usual and notes what DuckDB can write; later runs of the same SQL ask
 * for JSON, and check with typeof() that the types have not changed under the same SQL (a schema
 * change can do that), else run as usual.
 */
export class ResultReader {
  private readonly notes = new Map<string, Notes>();

  /** Bounds what the notes can hold: 256 statements of at most 64 kB of SQL each. */
  constructor(
    private readonly maxStatements = 256,
    private readonly maxSqlLength = 65_536,
  ) {}

  /** `exact`: integers beyond 2^53 as bigint, for stringifyExact (readJson); the rows of query() stay plain. */
  async read(run: ReadUntil, sql: string, params: Record<string, string | null>, maxRows: number, exact = false): Promise<ResultRow[]> {
    const notes = this.notes.get(sql);
    if (notes && notes.nested.length > 0) {
      const columns = notes.nested;
      const rows = await run(withJsonColumns(sql, columns), maxRows, params).then((reader) => jsonRows(reader, columns), unlessUnwrappable);
      if (rows) return rows.slice(0, maxRows);
      notes.nested = [];
    }
    const reader = await run(sql, maxRows, params);
    this.learn(sql, reader);
    return withJsonValues(reader, reader.convertRowObjects(exact ? exactConverter : resultConverter).slice(0, maxRows) as ResultRow[]);
  }

  /** The rows `read` returns, as the text of a JSON array (numbers beyond 2^53 exact). */
  async readJson(run: ReadUntil, sql: string, params: Record<string, string | null>, maxRows: number): Promise<string> {
    const notes = this.notes.get(sql);
    if (notes?.wire) {
      const wire = notes.wire;
      const text = await run(withRowJson(sql, wire), maxRows, params).then((reader) => jsonArray(reader, wire, maxRows), unlessUnwrappable);
      if (text !== undefined) return text;
      notes.wire = undefined;
    }
    return stringifyExact(await this.read(run, sql, params, maxRows, true));
  }

  private learn(sql: string, reader: DuckDBResultReader): void {
    const names = reader.columnNames();
    // `SELECT * REPLACE` and struct keys need every name once, and DuckDB compares names without case.
    if (this.notes.has(sql) || sql.length > this.maxSqlLength || new Set(names.map((name) => name.toLowerCase())).size !== names.length) return;
    const nested = names.filter((_, i) => nestedJsonExact(reader.columnType(i)));
    const forms = names.map((_, i) => wireForm(reader.columnType(i)));
    const wire = forms.every((form) => form !== undefined) ? names.map((name, i) => ({ name, form: forms[i]! })) : undefined;
    if (nested.length === 0 && !wire) return;
    if (this.notes.size >= this.maxStatements) this.notes.clear();
    this.notes.set(sql, { nested, wire });
  }
}

/**
 * The rows with their JSON values (DuckDB's JSON type, an alias of VARCHAR, also in lists and
 * structs) as JSON: convertRowObjects hands the converter types without their alias, so the
 * columns' own types say where they are.
 */
function withJsonValues(reader: DuckDBResultReader, rows: ResultRow[]): ResultRow[] {
  const names = reader.columnNames();
  const json = names.map((name, index) => ({ name, type: reader.columnType(index) })).filter(({ type }) => holdsJson(type));
  if (json.length === 0) return rows;
  for (const row of rows as Array<Record<string, unknown>>) for (const { name, type } of json) row[name] = jsonValues(row[name], type);
  return rows;
}

function holdsJson(type: DuckDBType): boolean {
  if (type.alias === 'JSON') return true;
  if (type instanceof DuckDBListType) return holdsJson(type.valueType);
  if (type instanceof DuckDBStructType) return type.entryTypes.some(holdsJson);
  return false;
}

function jsonValues(value: unknown, type: DuckDBType): unknown {
  if (value === null || value === undefined) return null;
  if (type.alias === 'JSON') return jsonResult(String(value));
  if (type instanceof DuckDBListType) return (value as unknown[]).map((item) => jsonValues(item, type.valueType));
  if (type instanceof DuckDBStructType) {
    const record = value as Record<string, unknown>;
    type.entryNames.forEach((name, index) => (record[name] = jsonValues(record[name], type.entryTypes[index]!)));
  }
  return value;
}

/** SQL that cannot be wrapped (a trailing comment, say) fails to parse or bind: undefined, to run it as is. */
function unlessUnwrappable(error: unknown): undefined {
  if (/(Parser|Binder) Error/.test(error instanceof Error ? error.message : '')) return undefined;
  throw error;
}

const WIRE_SCALARS = new Set([
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.VARCHAR,
]);
/** The same types by typeof() name (DECIMAL with its width and scale). */
const WIRE_SCALAR_NAMES = /^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|VARCHAR)$/;

function wireForm(type: DuckDBType): WireForm | undefined {
  if (type.alias) return undefined;
  if (type.typeId === DuckDBTypeId.TIMESTAMP_TZ) return 'micros';
  if (type.typeId === DuckDBTypeId.TIMESTAMP) return 'iso';
  return WIRE_SCALARS.has(type.typeId) || nestedJsonExact(type) ? 'as-is' : undefined;
}

function wireFormOf(typeName: string): WireForm | undefined {
  if (typeName === 'TIMESTAMP WITH TIME ZONE') return 'micros';
  if (typeName === 'TIMESTAMP') return 'iso';
  return WIRE_SCALAR_NAMES.test(typeName) || nestedAndJsonExact(typeName) ? 'as-is' : undefined;
}

function wireSql(column: string, form: WireForm): string {
  if (form === 'micros') return `epoch_us(${column})`;
  if (form === 'as-is') return column;
  return `CASE WHEN epoch_us(${column}) % 1000000 = 0 THEN strftime(${column}, '%Y-%m-%dT%H:%M:%S') ELSE strftime(${column}, '%Y-%m-%dT%H:%M:%S.%f') END`;
}

const ROW_COLUMN = 'sawmill:row';
const typeColumn = (i: number) => `sawmill:typeof:${i}`;
const typesSql = (columns: string[]) => columns.map((name, i) => `typeof(${quoteIdent(name)}) AS ${quoteIdent(typeColumn(i))}`).join(', ');

function withJsonColumns(sql: string, columns: string[]): string {
  const json = columns.map((name) => `to_json(${quoteIdent(name)}) AS ${quoteIdent(name)}`).join(', ');
  return `SELECT * REPLACE (${json}), ${typesSql(columns)} FROM (${sql})`;
}

function withRowJson(sql: string, wire: NonNullable<Notes['wire']>): string {
  const fields = wire.map(({ name, form }) => `${quoteString(name)}: ${wireSql(quoteIdent(name), form)}`).join(', ');
  return `SELECT to_json({${fields}}) AS ${quoteIdent(ROW_COLUMN)}, ${typesSql(wire.map(({ name }) => name))} FROM (${sql})`;
}

/** The rows as a JSON array; undefined when a type changed or DuckDB wrote what JSON cannot hold (NaN). */
function jsonArray(reader: DuckDBResultReader, wire: NonNullable<Notes['wire']>, maxRows: number): string | undefined {
  const count = Math.min(reader.currentRowCount, maxRows);
  if (count === 0) return '[]';
  // Only the first row's types: reading every value of every column took 0.5 ms for logs.all, this 0.3.
  if (!wire.every(({ form }, i) => wireFormOf(String(reader.value(i + 1, 0))) === form)) return undefined;
  const rows = new Array<string>(count);
  for (let row = 0; row < count; row++) rows[row] = reader.value(0, row) as string;
  const text = `[${rows.join(',')}]`;
  return text.includes('NaN') || text.includes('Infinity') ? undefined : text;
}

/** The rows, nested columns parsed back; undefined when a type is not exact in JSON or DuckDB wrote what JSON cannot hold (NaN). */
function jsonRows(reader: DuckDBResultReader, columns: string[]): ResultRow[] | undefined {
  const rows = reader.convertRowObjects(resultConverter) as Array<Record<string, unknown>>;
  const first = rows[0];
  if (first && !columns.every((_, i) => nestedAndJsonExact(String(first[typeColumn(i)])))) return undefined;
  try {
    for (const row of rows) {
      for (const [i, name] of columns.entries()) {
        const text = row[name];
        row[name] = typeof text === 'string' ? JSON.parse(text) : null;
        delete row[typeColumn(i)];
      }
    }
  } catch {
    return undefined;
  }
  return rows as ResultRow[];
}
