import { exactInteger } from '../exact-json.ts';
import { jsonResult } from '../json-results.ts';
import { parseType, unwrap, type TypeNode } from './types.ts';

/** The name of the one element of the tuple a JSON result value is wrapped in. */
export const JSON_MARKER = 'sawmill_json';

/**
 * Query results in the same wire shape as the DuckDB warehouse: TIMESTAMP as integer
 * microseconds, DATETIME as an ISO string without zone, DATE as YYYY-MM-DD, integers and decimals
 * as JSON numbers, records as arrays of objects.
 *
 * The translator marks the time types by zone: a BigQuery TIMESTAMP is a DateTime64 (or
 * DateTime) whose type names 'UTC' explicitly, a TIME one that names 'Etc/UTC' (on 1970-01-01);
 * every other DateTime is a DATETIME (wall clock).
 * 64-bit integers arrive quoted (output_format_json_quote_64bit_integers=1) and become numbers
 * here, as DuckDB's results do.
 */

type Converter = (value: unknown) => unknown;

const identity: Converter = (value) => value;
const toNumber: Converter = (value) => (value === null ? null : Number(value));
/** An integer exact beyond 2^53 (a bigint there), for stringifyExact. */
const toExactInteger: Converter = (value) => (value === null ? null : typeof value === 'string' && /^-?\d+$/.test(value) ? exactInteger(value) : Number(value));

/** Infinity and NaN, which JSON has no numbers for, as BigQuery's API writes them: "Infinity", "-Infinity", "NaN". */
const SPECIAL_FLOATS: Record<string, string> = { inf: 'Infinity', '+inf': 'Infinity', '-inf': '-Infinity', nan: 'NaN', '-nan': 'NaN' };
const floatValue: Converter = (value) => (typeof value === 'string' ? (SPECIAL_FLOATS[value] ?? Number(value)) : value);

/** `2024-01-01 10:00:00.123456` (UTC wall clock) → microseconds since the epoch. */
export function microsFromText(text: string): number {
  const [seconds = '', fraction = ''] = text.split('.');
  const millis = Date.parse(`${seconds.replace(' ', 'T')}Z`);
  if (Number.isNaN(millis)) throw new Error(`unreadable ClickHouse time ${text}`);
  return millis * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6) || '0');
}

/** `2024-01-01 10:00:00.500000` → `2024-01-01T10:00:00.500000`, the fraction only when not zero. */
function isoWithoutZone(text: string): string {
  const [seconds = '', fraction = ''] = text.split('.');
  const iso = seconds.replace(' ', 'T');
  return /^0*$/.test(fraction) ? iso : `${iso}.${fraction.padEnd(6, '0').slice(0, 6)}`;
}

/** A TIME (a DateTime64 marked by the zone 'Etc/UTC' on 1970-01-01): `HH:MM:SS[.ffffff]`, the fraction only when not zero. */
function timeOfDay(text: string): string {
  const [clock = '', fraction = ''] = (text.split(' ')[1] ?? text).split('.');
  return /^0*$/.test(fraction) ? clock : `${clock}.${fraction.padEnd(6, '0').slice(0, 6)}`;
}

/**
 * `wire`: the service's result shape. `iso`: TIMESTAMP as `2024-01-01T10:00:00Z` and DATETIME
 * without the zone, trailing zeros of the fraction dropped (how the translation corpus writes
 * expected rows).
 */
export type TimeRendering = 'wire' | 'iso';

function isoText(text: string, zone: string): string {
  const [seconds = '', fraction = ''] = text.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  return `${seconds.replace(' ', 'T')}${trimmed ? `.${trimmed}` : ''}${zone}`;
}

function converterFor(node: TypeNode, times: TimeRendering = 'wire', exact = false): Converter {
  const type = unwrap(node);
  const nullSafe = (convert: Converter): Converter => (value) => (value === null || value === undefined ? null : convert(value));
  switch (type.name) {
    case 'Int64':
    case 'UInt64':
    case 'Int128':
    case 'UInt128':
    case 'Int256':
    case 'UInt256':
      return nullSafe(exact ? toExactInteger : toNumber);
    case 'Decimal':
    case 'Decimal32':
    case 'Decimal64':
    case 'Decimal128':
    case 'Decimal256':
      return nullSafe(toNumber);
    case 'Float32':
    case 'Float64':
      return nullSafe(floatValue);
    case 'DateTime64':
    case 'DateTime': {
      const zone = type.args.find((arg) => arg.type.name.startsWith("'"))?.type.name;
      if (zone === "'Etc/UTC'") return nullSafe((value) => timeOfDay(String(value)));
      if (times === 'iso') return nullSafe((value) => isoText(String(value), zone === "'UTC'" ? 'Z' : ''));
      return nullSafe(zone === "'UTC'" ? (value) => microsFromText(String(value)) : (value) => isoWithoutZone(String(value)));
    }
    case 'Array': {
      const element = converterFor(type.args[0]!.type, times, exact);
      return nullSafe((value) => (value as unknown[]).map(element));
    }
    case 'Tuple': {
      // A JSON value, marked so by the printer (sql-generator.ts print).
      if (type.args.length === 1 && type.args[0]!.name === JSON_MARKER) {
        return nullSafe((value) => {
          const text = Array.isArray(value) ? value[0] : (value as Record<string, unknown>)[JSON_MARKER];
          return typeof text === 'string' ? jsonResult(text) : null;
        });
      }
      const elements = type.args.map((arg) => ({ name: arg.name, convert: converterFor(arg.type, times, exact) }));
      if (elements.every((element) => element.name !== undefined)) {
        return nullSafe((value) => {
          const record = value as Record<string, unknown>;
          return Object.fromEntries(elements.map((element) => [element.name!, element.convert(record[element.name!] ?? null)]));
        });
      }
      return nullSafe((value) => (value as unknown[]).map((item, index) => (elements[index]?.convert ?? identity)(item)));
    }
    case 'Map': {
      const convert = converterFor(type.args[1]!.type, times, exact);
      return nullSafe((value) => Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, convert(item)])));
    }
    default:
      return identity;
  }
}

/**
 * Rows of a JSONCompactEachRowWithNamesAndTypes result (names, types, then value arrays) as
 * objects in the wire shape.
 */
export function rowsFromCompact(lines: unknown[][], exact = false): Record<string, unknown>[] {
  const { columns, rows } = convertCompact(lines, 'wire', exact);
  return rows.map((row) => Object.fromEntries(columns.map((name, index) => [name, row[index]])));
}

/** Column names and converted value arrays of a JSONCompactEachRowWithNamesAndTypes result. */
export function convertCompact(lines: unknown[][], times: TimeRendering, exact = false): { columns: string[]; rows: unknown[][] } {
  const [names = [], types = [], ...values] = lines as [string[], string[], ...unknown[][]];
  const converters = types.map((type) => converterFor(parseType(type), times, exact));
  return { columns: names, rows: values.map((row) => converters.map((convert, index) => convert(row[index] ?? null))) };
}
