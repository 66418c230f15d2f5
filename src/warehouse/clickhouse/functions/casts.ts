/**
 * ClickHouse's CAST and SAFE_CAST where BigQuery's rules differ from ClickHouse's own cast: date and
 * time text both ways (a TIME is a DateTime64 marked 'Etc/UTC', calendar.ts), INTERVAL text,
 * hexadecimal INT64 text, and CAST … FORMAT: the renderings src/sql/casts.ts decides between.
 */

import { arg } from '../../../sql/emitters.ts';
import { castSql as sharedCastSql, stringOf as sharedStringOf, type CastContext, type CastRenderings } from '../../../sql/casts.ts';
import { bytesFormat, castFormatPieces, castParsePlan } from '../../../sql/cast-formats.ts';
import { canonicalPieces, castTextPlan, type TimeType } from '../../../sql/format-elements.ts';
import type * as ir from '../../../sql/ir.ts';
import { invalidSql } from '../../../sql/parse.ts';
import type { ExprOf } from '../../../sql/printer.ts';
import { intervalCastPatterns } from '../../../sql/interval-text.ts';
import { parseZone, type Zone } from '../../../sql/time-zones.ts';
import { TIME_ZONE_MARK, dateOf, datetimeOf, instantOf, micros, offsetMinutesAt, timeOf, timestampOf, wallClock, zoneArg } from './calendar.ts';
import { numberText } from './number-formats.ts';
import { formatSql, parseSql } from './formats.ts';
import { intervalOf, intervalText } from './interval.ts';
import { quoted as quoteString, raiseWhere } from './shared.ts';

const TIME_TYPES: ReadonlySet<ir.TypeName> = new Set(['DATE', 'DATETIME', 'TIME', 'TIMESTAMP']);

/** CAST(value AS STRING) of a date or time value, as BigQuery writes it. */
export function timeText(value: string, type: TimeType, zone: Zone = { kind: 'offset', minutes: 0 }): string {
  const pieces = canonicalPieces(type);
  if (type === 'DATE') return formatSql(pieces, type, { wall: value, wallMicros: '0', epochMicros: '0' });
  if (type !== 'TIMESTAMP') return formatSql(pieces, type, { wall: value, wallMicros: micros(value), epochMicros: micros(value) });
  const wall = wallClock(value, zone);
  return formatSql(pieces, type, { wall, wallMicros: micros(wall), epochMicros: micros(value), offsetMinutes: offsetMinutesAt(value, zone) });
}

const DAY = 'toInt64(86400000000)';
const timeOfDay = (value: string) => timeOf(`((${micros(value)} % ${DAY} + ${DAY}) % ${DAY})`);

/** CAST(text AS DATE | DATETIME | TIME) by BigQuery's rules (ClickHouse's own reading wants two-digit months and no leap second). */
function timeFromText(text: string, type: 'DATE' | 'DATETIME' | 'TIME', safe: boolean): string {
  const { matches, parts, withGroups } = parseSql(castTextPlan(type), type, text, 'CAST');
  const value = type === 'DATE' ? dateOf(parts.value) : type === 'TIME' ? timeOf(parts.value) : datetimeOf(parts.value);
  const message = `Invalid ${type.toLowerCase()}`;
  const bad = `NOT (${parts.inRange}) OR NOT (${parts.validDate})`;
  const read = withGroups(`if(${bad}, ${safe ? 'NULL' : raiseWhere(bad, message)}, ${value})`);
  const mismatch = `NOT ${matches}`;
  return `if(isNull(${text}), NULL, if(${mismatch}, ${safe ? 'NULL' : raiseWhere(mismatch, message)}, ${read}))`;
}

/**
 * CAST(text AS INT64) also reads hexadecimal (`0x1F`, `-0x100`), as BigQuery does; a value past
 * INT64 (`0xFFFFFFFFFFFFFFFF`) is an error, NULL under SAFE_CAST (its 64 bits would wrap).
 */
function int64FromText(text: string, safe: boolean): string {
  const hexPattern = "'^\\\\s*([+-]?)0[xX]([0-9a-fA-F]{1,16})\\\\s*$'";
  const groups = `extractGroups(assumeNotNull(${text}), ${hexPattern})`;
  const magnitude = `reinterpretAsUInt64(reverse(unhex(leftPad(__hex[2], 16, '0'))))`;
  const negative = `__hex[1] = '-'`;
  const tooBig = `${magnitude} > if(${negative}, 9223372036854775808, 9223372036854775807)`;
  const value = `if(${negative}, toInt64(-toInt128(${magnitude})), toInt64(${magnitude}))`;
  const hex = `arrayMap(__hex -> ${refused(tooBig, 'Bad int64 value', safe, value)}, [${groups}])[1]`;
  const decimal = safe ? `toInt64OrNull(trimBoth(${text}))` : `CAST(trimBoth(assumeNotNull(${text})) AS Int64)`;
  return `if(isNull(${text}), NULL, if(match(assumeNotNull(${text}), ${hexPattern}), ${hex}, ${decimal}))`;
}

/** The SQL for a CAST ClickHouse's own cast does not write as BigQuery, or undefined for its cast. */
const RENDERINGS: CastRenderings = {
  formatted: formattedCast,
  timeText: (value, type) => timeText(value, type),
  intervalText,
  intervalFromText,
  intervalOf,
  timeFromText,
  int64FromText,
  nullOf: () => 'NULL',
  more: (expr, target, value) => {
    if (target === 'TIME' && (expr.from === 'DATETIME' || expr.from === 'TIMESTAMP')) return timeOfDay(value);
    if (target === 'TIME' && expr.expr.kind === 'null') return `CAST(NULL AS Nullable(DateTime64(6, '${TIME_ZONE_MARK}')))`;
    return undefined;
  },
};

/** ClickHouse's rendering of a cast where BigQuery's rules differ from ClickHouse's (src/sql/casts.ts). */
export const castSql = (expr: ExprOf<'cast'>, context: CastContext) => sharedCastSql(expr, context, RENDERINGS);

/** STRING(value[, zone]). */
export const stringOf = sharedStringOf('ClickHouse', (call, type) => timeText(arg(call, 0), type, zoneArg(call, 1)));

/**
 * CAST(text AS INTERVAL) of a value: by the same rules as a literal's, in SQL, the form chosen by
 * its spaces, colons and dashes (interval-text.ts) or ISO 8601's `P…`.
 */
function intervalFromText(text: string, safe: boolean): string {
  const value = `assumeNotNull(${text})`;
  const key = `concat(toString(countSubstrings(${value}, ' ')), toString(countSubstrings(${value}, ':')), toString(countMatches(${value}, '\\\\d-')))`;
  const forms = intervalCastPatterns().flatMap(({ key: form, pattern, groups }) => {
    const regex = quoteString(pattern);
    const at = (index: number | undefined) => (index === undefined ? undefined : `__g[${index}]`);
    const int = (index: number | undefined) => (index === undefined ? '0' : `toInt64(${at(index)})`);
    const sign = (index: number | undefined) => (index === undefined ? '1' : `if(${at(index)} = '-', -1, 1)`);
    const fraction = groups.fraction === undefined ? '0' : `toInt64(substring(concat(${at(groups.fraction)}, '000000'), 1, 6))`;
    const months = `${sign(groups.monthSign)} * (${int(groups.years)} * 12 + ${int(groups.months)})`;
    const clock = `${sign(groups.clockSign)} * ((${int(groups.hours)} * 3600 + ${int(groups.minutes)} * 60 + ${int(groups.seconds)}) * 1000000 + ${fraction})`;
    const read = `arrayMap(__g -> ${intervalOf(months, int(groups.days), clock)}, [extractGroups(${value}, ${regex})])[1]`;
    return [`${key} = '${form}' AND match(${value}, ${regex})`, read];
  });
  const iso = `'^P(?:-?\\\\d+[YMWD])*(?:T(?:-?\\\\d+[HM]|-?\\\\d+(?:[.,]\\\\d{0,9})?S)*)?$'`;
  const datePart = `splitByChar('T', ${value})[1]`;
  const timePart = `if(position(${value}, 'T') > 0, splitByChar('T', ${value})[2], '')`;
  const dateSum = (units: Record<string, number>) =>
    `arraySum(arrayMap(__p -> toInt64(concat(__p[1], __p[2])) * multiIf(${Object.entries(units).map(([unit, factor]) => `__p[3] = '${unit}', ${factor}`).join(', ')}, 0), extractAllGroups(${datePart}, '(-?)(\\\\d+)([YMWD])')))`;
  const timeSum = `arraySum(arrayMap(__p -> if(__p[1] = '-', -1, 1) * multiIf(__p[4] = 'H', toInt64(__p[2]) * 3600000000, __p[4] = 'M', toInt64(__p[2]) * 60000000, toInt64(__p[2]) * 1000000 + toInt64(substring(concat(__p[3], '000000'), 1, 6))), extractAllGroups(${timePart}, '(-?)(\\\\d+)(?:[.,](\\\\d*))?([HMS])')))`;
  const isoValue = intervalOf(dateSum({ Y: 12, M: 1 }), dateSum({ W: 7, D: 1 }), timeSum);
  const invalid = `NOT match(${value}, ${iso}) AND NOT (${forms.filter((_, index) => index % 2 === 0).join(' OR ')})`;
  const failure = safe ? 'NULL' : raiseWhere(`isNotNull(${text}) AND ${invalid}`, 'Invalid INTERVAL value');
  return `multiIf(isNull(${text}), NULL, ${forms.join(', ')}, length(${value}) > 1 AND match(${value}, ${iso}), ${isoValue}, ${failure})`;
}

// ---- CAST … FORMAT ---------------------------------------------------------------------------------

const refused = (failing: string, message: string, safe: boolean, value: string) => `if(${failing}, ${safe ? 'NULL' : raiseWhere(failing, message)}, ${value})`;

function formattedCast(expr: ExprOf<'cast'>, target: ir.ScalarTypeName, value: string, format: { model: string; zone?: string }): string {
  const from = expr.from ?? 'STRING';
  const zone = format.zone === undefined ? ({ kind: 'offset', minutes: 0 } as const) : literalZone(format.zone);
  if (target === 'STRING' && TIME_TYPES.has(from)) {
    const type = from as TimeType;
    const pieces = castFormatPieces(format.model, type);
    if (type === 'DATE') return formatSql(pieces, type, { wall: value, wallMicros: '0', epochMicros: '0' });
    if (type !== 'TIMESTAMP') return formatSql(pieces, type, { wall: value, wallMicros: micros(value), epochMicros: micros(value) });
    const wall = wallClock(value, zone);
    return formatSql(pieces, type, { wall, wallMicros: micros(wall), epochMicros: micros(value), offsetMinutes: offsetMinutesAt(value, zone) });
  }
  if (from === 'STRING' && TIME_TYPES.has(target)) return timeFromModel(value, target as TimeType, format.model, zone, expr.safe);
  if (target === 'STRING' && from === 'BYTES') return bytesToText(value, format.model, expr.safe);
  if (target === 'BYTES' && from === 'STRING') return textToBytes(value, format.model, expr.safe);
  if (target === 'STRING') return numberText(value, from, format.model);
  throw invalidSql(`FORMAT is not allowed in a CAST from ${from} to ${target}`);
}

function literalZone(text: string): Zone {
  const zone = parseZone(text);
  if (!zone) throw invalidSql(`Invalid time zone: ${text}`);
  return zone;
}

function timeFromModel(text: string, type: TimeType, model: string, zone: Zone, safe: boolean): string {
  const { matches, parts, withGroups } = parseSql(castParsePlan(model, type), type, text, 'CAST');
  const message = 'Failed to parse input timestamp string with the format';
  let value: string;
  if (type === 'DATE') value = dateOf(parts.value);
  else if (type === 'TIME') value = timeOf(parts.value);
  else if (type === 'DATETIME') value = datetimeOf(parts.value);
  else value = parts.offsetMinutes ? timestampOf(`${parts.value} - ${parts.offsetMinutes} * 60000000`) : instantOf(datetimeOf(parts.value), zone);
  const bad = `NOT (${parts.inRange}) OR NOT (${parts.validDate})`;
  const read = withGroups(refused(bad, message, safe, value));
  return `if(isNull(${text}), NULL, ${refused(`NOT ${matches}`, message, safe, read)})`;
}

const knownBytesFormat = (model: string) => {
  const format = bytesFormat(model);
  if (!format) throw invalidSql(`Unsupported format for a CAST between BYTES and STRING: ${model}`);
  if (format === 'BASE8') throw invalidSql('CAST … FORMAT BASE8 is not supported on ClickHouse');
  return format;
};

function bytesToText(bytes: string, model: string, safe: boolean): string {
  switch (knownBytesFormat(model)) {
    case 'HEX':
    case 'BASE16':
      return `lower(hex(${bytes}))`;
    case 'BASE2':
      return `bin(${bytes})`;
    case 'BASE32':
      return `base32Encode(${bytes})`;
    case 'BASE64':
      return `base64Encode(${bytes})`;
    case 'BASE64M': {
      const text = `base64Encode(${bytes})`;
      return `arrayStringConcat(arrayMap(__i -> substring(${text}, __i * 76 + 1, 76), range(toUInt64(greatest(intDiv(length(${text}) + 75, 76), 1)))), '\\n')`;
    }
    case 'ASCII':
      return refused(`match(${bytes}, '[^\\x00-\\x7F]')`, 'Invalid ASCII value in BYTES', safe, bytes);
    default:
      return refused(`NOT isValidUTF8(${bytes})`, 'Invalid UTF-8 value in BYTES', safe, bytes);
  }
}

function textToBytes(text: string, model: string, safe: boolean): string {
  switch (knownBytesFormat(model)) {
    case 'HEX':
    case 'BASE16':
      return refused(`NOT match(${text}, '^[0-9A-Fa-f]*$')`, 'Invalid HEX value', safe, `unhex(${text})`);
    case 'BASE2':
      return `unbin(${text})`;
    case 'BASE32':
      return `base32Decode(${text})`;
    case 'BASE64':
    case 'BASE64M':
      return `base64Decode(replaceRegexpAll(${text}, '\\s', ''))`;
    case 'ASCII':
      return refused(`match(${text}, '[^\\x00-\\x7F]')`, 'Invalid ASCII value in STRING', safe, text);
    default:
      return text;
  }
}
