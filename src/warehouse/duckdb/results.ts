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
import type { ResultRow } from '../types.ts';
import { quoteIdent } from './types.ts';

/**
 * Query results in the wire shape Logflare clients expect: TIMESTAMP (TIMESTAMPTZ here) as integer
 * microseconds, DATETIME (plain TIMESTAMP here) as an ISO string without zone, integers and decimals
 * as JSON numbers, records as arrays of objects.
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

type ReadUntil = (sql: string, maxRows: number, params: Record<string, string | null>) => Promise<DuckDBResultReader>;

/**
 * Query results, with nested columns serialised by DuckDB. Converting lists of records value by
 * value here costs ~35 µs a row (logs.all's 100 rows of metadata: 3.7 ms, a fifth of its query);
 * DuckDB's to_json plus JSON.parse take 0.9 ms. Which columns are nested is only known from a
 * result, so the first run of a statement converts as usual and notes the columns whose JSON reads
 * back exactly; later runs of the same SQL ask for those as JSON, and check with typeof() that the
 * types have not changed under the same SQL (a schema change can do that), else run as usual.
 */
export class ResultReader {
  private readonly nested = new Map<string, string[]>();

  /** Bounds what the notes can hold: 256 statements of at most 64 kB of SQL each. */
  constructor(
    private readonly maxStatements = 256,
    private readonly maxSqlLength = 65_536,
  ) {}

  async read(run: ReadUntil, sql: string, params: Record<string, string | null>, maxRows: number): Promise<ResultRow[]> {
    const columns = this.nested.get(sql);
    if (columns) {
      const rows = await run(withJsonColumns(sql, columns), maxRows, params).then(
        (reader) => jsonRows(reader, columns),
        // SQL that cannot be wrapped (a trailing comment, say) fails to parse or bind: run it as is.
        (error: unknown) => (/(Parser|Binder) Error/.test(error instanceof Error ? error.message : '') ? undefined : Promise.reject(error)),
      );
      if (rows) return rows.slice(0, maxRows);
      this.nested.delete(sql);
    }
    const reader = await run(sql, maxRows, params);
    this.learn(sql, reader);
    return reader.convertRowObjects(resultConverter).slice(0, maxRows) as ResultRow[];
  }

  private learn(sql: string, reader: DuckDBResultReader): void {
    const names = reader.columnNames();
    const nested = names.filter((_, i) => nestedJsonExact(reader.columnType(i)));
    // `SELECT * REPLACE` needs every name once, and DuckDB compares names without case.
    if (nested.length === 0 || sql.length > this.maxSqlLength || new Set(names.map((name) => name.toLowerCase())).size !== names.length) return;
    if (this.nested.size >= this.maxStatements) this.nested.clear();
    this.nested.set(sql, nested);
  }
}

const typeColumn = (i: number) => `sawmill:typeof:${i}`;

function withJsonColumns(sql: string, columns: string[]): string {
  const json = columns.map((name) => `to_json(${quoteIdent(name)}) AS ${quoteIdent(name)}`).join(', ');
  const types = columns.map((name, i) => `typeof(${quoteIdent(name)}) AS ${quoteIdent(typeColumn(i))}`).join(', ');
  return `SELECT * REPLACE (${json}), ${types} FROM (${sql})`;
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
