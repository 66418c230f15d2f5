/**
 * DuckDB's CAST and SAFE_CAST where BigQuery's rules differ from DuckDB's own cast: date and time
 * text both ways (CAST(DATETIME AS STRING) is `2008-12-25 15:30:00`, a fraction in groups of three;
 * `2016-11-06t00:30:00` and a leap second are read), INTERVAL text, hexadecimal INT64 text, and
 * CAST … FORMAT (cast-formats.ts): the renderings src/sql/casts.ts decides between.
 */

import { arg } from '../../../sql/emitters.ts';
import { castSql as sharedCastSql, stringOf as sharedStringOf, type CastContext, type CastRenderings } from '../../../sql/casts.ts';
import { bytesFormat, castFormatPieces, castParsePlan } from '../../../sql/cast-formats.ts';
import { canonicalPieces, castTextPlan, type TimeType } from '../../../sql/format-elements.ts';
import type * as ir from '../../../sql/ir.ts';
import { invalidSql } from '../../../sql/parse.ts';
import type { ExprOf } from '../../../sql/printer.ts';
import { instantOf, offsetMinutesAt, wallClock, zoneArg, zoneOf, type ZoneArg } from './calendar.ts';
import { numberText } from './number-formats.ts';
import { quoted } from './shared.ts';
import { formatSql, parseSql } from './formats.ts';
import { intervalOf, intervalText } from './interval.ts';

const TIME_TYPES: ReadonlySet<ir.TypeName> = new Set(['DATE', 'DATETIME', 'TIME', 'TIMESTAMP']);

/** BigQuery's error (DuckDB's error()), or NULL for SAFE_CAST. */
const failure = (safe: boolean, message: string) => (safe ? 'NULL' : `error(${message})`);

/** CAST(value AS STRING) of a date or time value, as BigQuery writes it. */
export function timeText(value: string, type: TimeType, zone: ZoneArg = { kind: 'offset', minutes: 0 }): string {
  const pieces = canonicalPieces(type);
  switch (type) {
    case 'DATE':
      return formatSql(pieces, type, { wall: `CAST(${value} AS TIMESTAMP)`, epochMicros: '0' });
    case 'TIME':
      return formatSql(pieces, type, { wall: `(DATE '1970-01-01' + ${value})`, epochMicros: '0' });
    case 'DATETIME':
      return formatSql(pieces, type, { wall: value, epochMicros: '0' });
    case 'TIMESTAMP': {
      const offset = zone.kind === 'offset' ? String(zone.minutes) : `CAST((epoch_us(${wallClock(value, zone)}) - epoch_us(${value})) // 60000000 AS BIGINT)`;
      return formatSql(pieces, type, { wall: wallClock(value, zone), epochMicros: `epoch_us(${value})`, offsetMinutes: offset });
    }
  }
}

/** CAST(text AS DATE | DATETIME | TIME) by BigQuery's rules: DuckDB's cast where it reads the text, BigQuery's reading where it does not. */
function timeFromText(text: string, type: 'DATE' | 'DATETIME' | 'TIME', safe: boolean): string {
  const { matches, parts, withGroups } = parseSql(castTextPlan(type), type, text, 'CAST');
  const invalid = failure(safe, `'Invalid ${type.toLowerCase()}: ''' || ${text} || ''''`);
  const value = type === 'DATE' ? `CAST(DATE '1970-01-01' + CAST(${parts.value} AS INTEGER) AS DATE)` : type === 'TIME' ? `(TIME '00:00:00' + to_microseconds(${parts.value}))` : `make_timestamp(${parts.value})`;
  const read = withGroups(`CASE WHEN NOT (${parts.inRange}) OR NOT (${parts.validDate}) THEN ${invalid} ELSE ${value} END`);
  return `(CASE WHEN ${text} IS NULL THEN NULL WHEN NOT ${matches} THEN ${invalid} ELSE ${read} END)`;
}

/**
 * CAST(text AS INT64) also reads hexadecimal (`0x1F`, `-0x100`), as BigQuery does: DuckDB's cast
 * first, the hexadecimal reading only for the rows it does not read. The magnitude is read
 * unsigned and signed before the range check, so -0x8000000000000000 is INT64's smallest.
 */
function int64FromText(text: string, safe: boolean): string {
  const hex = `regexp_extract(${text}, '^\\s*([+-]?)0[xX]([0-9a-fA-F]+)\\s*$', ['sign', 'digits'])`;
  const cast = safe ? 'TRY_CAST' : 'CAST';
  const magnitude = `CAST(${cast}(('0x' || struct_extract(${hex}, 'digits')) AS UBIGINT) AS HUGEINT)`;
  const signed = `(CASE WHEN struct_extract(${hex}, 'sign') = '-' THEN -${magnitude} ELSE ${magnitude} END)`;
  const otherwise = `CASE WHEN regexp_matches(${text}, '^\\s*[+-]?0[xX][0-9a-fA-F]+\\s*$') THEN ${cast}(${signed} AS BIGINT) ELSE ${cast}(${text} AS BIGINT) END`;
  return `coalesce(TRY_CAST(${text} AS BIGINT), ${otherwise})`;
}

/** CAST(text AS INTERVAL) of a value: read by the same reading as a literal, in JavaScript (interval-text.ts). */
function intervalFromText(text: string, safe: boolean): string {
  const parts = `sawmill_interval_parts(${text})`;
  const invalid = failure(safe, `'Invalid INTERVAL value ''' || ${text} || ''''`);
  return `(CASE WHEN ${text} IS NULL THEN NULL WHEN ${parts} IS NULL THEN ${invalid} ELSE ${intervalOf(`${parts}[1]`, `${parts}[2]`, `${parts}[3]`)} END)`;
}

/** The SQL for a CAST DuckDB's own cast does not write as BigQuery, or undefined for DuckDB's cast. */
const RENDERINGS: CastRenderings = {
  formatted: formattedCast,
  timeText: (value, type) => timeText(value, type),
  intervalText,
  intervalFromText,
  intervalOf,
  timeFromText,
  int64FromText,
  nullOf: (type) => `CAST(NULL AS ${type === 'DATETIME' ? 'TIMESTAMP' : type === 'TIMESTAMP' ? 'TIMESTAMPTZ' : type})`,
};

/** DuckDB's rendering of a cast where BigQuery's rules differ from DuckDB's (src/sql/casts.ts). */
export const castSql = (expr: ExprOf<'cast'>, context: CastContext) => sharedCastSql(expr, context, RENDERINGS);

/** STRING(value[, zone]). */
export const stringOf = sharedStringOf('DuckDB', (call, type) => timeText(arg(call, 0), type, zoneArg(call, 1)));

// ---- CAST … FORMAT ---------------------------------------------------------------------------------

function formattedCast(expr: ExprOf<'cast'>, target: ir.ScalarTypeName, value: string, format: { model: string; zone?: string }): string {
  const from = expr.from ?? 'STRING';
  const zone = format.zone === undefined ? ({ kind: 'offset', minutes: 0 } as const) : zoneOf({ kind: 'string', value: format.zone }, quoted(format.zone));
  if (target === 'STRING' && TIME_TYPES.has(from)) {
    const type = from as TimeType;
    const pieces = castFormatPieces(format.model, type);
    if (type === 'DATE') return formatSql(pieces, type, { wall: `CAST(${value} AS TIMESTAMP)`, epochMicros: '0' });
    if (type === 'TIME') return formatSql(pieces, type, { wall: `(DATE '1970-01-01' + ${value})`, epochMicros: '0' });
    if (type === 'DATETIME') return formatSql(pieces, type, { wall: value, epochMicros: '0' });
    return formatSql(pieces, type, { wall: wallClock(value, zone), epochMicros: `epoch_us(${value})`, offsetMinutes: offsetMinutesAt(value, zone) });
  }
  if (from === 'STRING' && TIME_TYPES.has(target)) return timeFromModel(value, target as TimeType, format.model, zone, expr.safe);
  if (target === 'STRING' && from === 'BYTES') return bytesToText(value, format.model, expr.safe);
  if (target === 'BYTES' && from === 'STRING') return textToBytes(value, format.model, expr.safe);
  if (target === 'STRING') return numberText(value, from, format.model);
  throw invalidSql(`FORMAT is not allowed in a CAST from ${from} to ${target}`);
}

/** CAST(text AS type FORMAT model [AT TIME ZONE zone]): the model's parse plan (cast-formats.ts). */
function timeFromModel(text: string, type: TimeType, model: string, zone: ZoneArg, safe: boolean): string {
  const { matches, parts, withGroups } = parseSql(castParsePlan(model, type), type, text, 'CAST');
  const invalid = failure(safe, `'Failed to parse input timestamp string "' || ${text} || '" with format ' || ${quoted(model)}`);
  let value: string;
  if (type === 'DATE') value = `CAST(DATE '1970-01-01' + CAST(${parts.value} AS INTEGER) AS DATE)`;
  else if (type === 'TIME') value = `(TIME '00:00:00' + to_microseconds(${parts.value}))`;
  else if (type === 'DATETIME') value = `make_timestamp(${parts.value})`;
  else value = parts.offsetMinutes ? `make_timestamptz(${parts.value} - ${parts.offsetMinutes} * 60000000)` : instantOf(`make_timestamp(${parts.value})`, zone);
  const read = withGroups(`CASE WHEN NOT (${parts.inRange}) OR NOT (${parts.validDate}) THEN ${invalid} ELSE ${value} END`);
  return `(CASE WHEN ${text} IS NULL THEN NULL WHEN NOT ${matches} THEN ${invalid} ELSE ${read} END)`;
}

const knownBytesFormat = (model: string) => {
  const format = bytesFormat(model);
  if (!format) throw invalidSql(`Unsupported format for a CAST between BYTES and STRING: ${model}`);
  if (format === 'BASE8') throw invalidSql('CAST … FORMAT BASE8 is not supported on DuckDB');
  return format;
};

function bytesToText(bytes: string, model: string, safe: boolean): string {
  switch (knownBytesFormat(model)) {
    case 'HEX':
    case 'BASE16':
      return `lower(hex(${bytes}))`;
    case 'BASE2':
      return `(CASE WHEN octet_length(${bytes}) = 0 THEN '' ELSE array_to_string(list_transform(string_split(hex(${bytes}), ''), digit -> lpad(bin(CAST('0x' || digit AS INTEGER)), 4, '0')), '') END)`;
    case 'BASE32':
      return `sawmill_to_base32(${bytes})`;
    case 'BASE64':
      return `to_base64(${bytes})`;
    case 'BASE64M': {
      const text = `to_base64(${bytes})`;
      return `array_to_string(list_transform(range(0, greatest(length(${text}), 1), 76), i -> substr(${text}, i + 1, 76)), chr(10))`;
    }
    case 'ASCII':
      return `(CASE WHEN regexp_matches(hex(${bytes}), '^(?:[0-7][0-9A-F])*$') THEN decode(${bytes}) ELSE ${failure(safe, "'Invalid ASCII value in BYTES'")} END)`;
    default:
      // decode() raises DuckDB's own message for bytes that are not UTF-8.
      return `(CASE WHEN ${bytes} IS NULL THEN NULL ELSE coalesce(try(decode(${bytes})), ${failure(safe, "'Invalid UTF-8 value in BYTES'")}) END)`;
  }
}

function textToBytes(text: string, model: string, safe: boolean): string {
  switch (knownBytesFormat(model)) {
    case 'HEX':
    case 'BASE16':
      return `(CASE WHEN regexp_full_match(${text}, '[0-9A-Fa-f]*') THEN unhex(CASE WHEN length(${text}) % 2 = 1 THEN '0' || ${text} ELSE ${text} END) ELSE ${failure(safe, "'Invalid HEX value'")} END)`;
    case 'BASE2':
      return `unbin(${text})`;
    case 'BASE32':
      return `sawmill_from_base32(${text})`;
    case 'BASE64':
    case 'BASE64M':
      return `from_base64(regexp_replace(${text}, '\\s', '', 'g'))`;
    case 'ASCII':
      return `(CASE WHEN regexp_matches(${text}, '[^\\x00-\\x7F]') THEN ${failure(safe, "'Invalid ASCII value in STRING'")} ELSE encode(${text}) END)`;
    default:
      return `encode(${text})`;
  }
}
