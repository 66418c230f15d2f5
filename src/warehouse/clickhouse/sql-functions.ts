/**
 * ClickHouse spelling of every allow-listed BigQuery function (src/sql/functions.ts): those every
 * engine spells alike come from PORTABLE_EMITTERS (src/sql/emitters.ts), the rest are here. The
 * Record type makes a function added to the allow-list without a ClickHouse mapping a compile
 * error.
 * Counts, lengths and positions are cast to Int64 (BigQuery INT64; ClickHouse returns UInt64,
 * which wraps around on subtraction).
 */

import type { BigQueryFunction } from '../../sql/functions.ts';
import { arg, datePartName, optionalArg, PORTABLE_EMITTERS, regexpExtractGroup, same, type CallParts, type Emitter } from '../../sql/emitters.ts';
import type * as ir from '../../sql/ir.ts';
import { invalidSql } from '../../sql/parse.ts';

const int64 =
  (inner: Emitter): Emitter =>
  (call) =>
    `toInt64(${inner(call)})`;

/** BigQuery's GREATEST/LEAST return NULL when any argument is NULL; ClickHouse's skip NULLs. */
const nullPropagating =
  (name: string): Emitter =>
  (call) =>
    `if(${call.args.map((value) => `isNull(${value})`).join(' OR ')}, NULL, ${name}(${call.args.join(', ')}))`;

const padding =
  (name: string): Emitter =>
  (call) =>
    `${name}(${arg(call, 0)}, toUInt64(${arg(call, 1)}), ${optionalArg(call, 2) ?? "' '"})`;

/** The first instant of the part containing `value`, as ClickHouse returns it (DateTime or Date). */
function truncate(call: CallParts, value: string): string {
  const raw = call.raw[1];
  if (raw?.kind !== 'date_part') throw invalidSql('expected a date part keyword');
  switch (raw.part) {
    case 'microsecond':
      return `toDateTime64(${value}, 6)`;
    case 'millisecond':
      return `toStartOfMillisecond(toDateTime64(${value}, 6))`;
    case 'second':
      return `toStartOfSecond(toDateTime64(${value}, 6))`;
    case 'minute':
      return `toStartOfMinute(${value})`;
    case 'hour':
      return `toStartOfHour(${value})`;
    case 'day':
      return `toStartOfDay(${value})`;
    case 'week':
      // BigQuery WEEK starts on Sunday (mode 0), ISOWEEK on Monday.
      return `toStartOfWeek(${value}, 0)`;
    case 'isoweek':
      return `toMonday(${value})`;
    case 'month':
      return `toStartOfMonth(${value})`;
    case 'quarter':
      return `toStartOfQuarter(${value})`;
    case 'year':
      return `toStartOfYear(${value})`;
    case 'isoyear':
      return `toStartOfISOYear(${value})`;
    default:
      throw invalidSql(`date part ${raw.part.toUpperCase()} is not valid here`);
  }
}

/** A constant zone argument, which ClickHouse needs for every time-zone function. */
function zoneArg(call: CallParts, index: number): string | undefined {
  const raw = call.raw[index];
  if (raw === undefined) return undefined;
  if (raw.kind !== 'string') throw invalidSql('the time zone must be a string literal on ClickHouse');
  return arg(call, index);
}

/** NULL where the pattern does not match (ClickHouse's regexpExtract gives ''). */
function regexpExtract(call: CallParts): string {
  const group = regexpExtractGroup(call);
  const [value, regex] = [arg(call, 0), arg(call, 1)];
  return `if(match(${value}, ${regex}), regexpExtract(${value}, ${regex}, ${group}), NULL)`;
}

/** What this engine does not map: refused by name when printed. */
const unsupported =
  (name: string): Emitter =>
  () => {
    throw invalidSql(`${name} is not supported on ClickHouse`);
  };

/**
 * The aggregate an ARRAY_AGG-like function collects with (groupArray skips NULLs, so IGNORE NULLS
 * needs nothing): LIMIT n is groupArray's own parameter; ORDER BY has no counterpart.
 */
function collected(call: CallParts): string {
  if (call.orderBy) throw invalidSql('ORDER BY inside an aggregate is not supported on ClickHouse');
  if (call.distinct) return call.limit === undefined ? 'groupUniqArray' : `groupUniqArray(${call.limit})`;
  return call.limit === undefined ? 'groupArray' : `groupArray(${call.limit})`;
}

const TIMESTAMP = "DateTime64(6, 'UTC')";
const asTimestamp = (value: string) => `toDateTime64(${value}, 6, 'UTC')`;
/** A DATETIME: the wall clock, as a DateTime64 without the explicit 'UTC' that marks TIMESTAMP. */
const wallClock = (value: string, zone?: string) => `toDateTime64(toString(${value}${zone ? `, ${zone}` : ''}), 6)`;
const fromMicros = (micros: string) => `fromUnixTimestamp64Micro(${micros}, 'UTC')`;

/** Half away from zero, as BigQuery rounds (ClickHouse rounds floats half to even). */
function roundHalfAway(value: string, digits: string): string {
  const scale = `pow(10, toInt64(${digits}))`;
  return `(sign(${value}) * floor(abs(${value}) * ${scale} + 0.5) / ${scale})`;
}

/** The date parts an INTERVAL may count, as ClickHouse names them in toInterval<Unit>(). */
const INTERVAL_UNITS: Partial<Record<ir.DatePart, string>> = {
  microsecond: 'Microsecond',
  millisecond: 'Millisecond',
  second: 'Second',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
  week: 'Week',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
};

/** Shared with the printer's INTERVAL, whose toInterval<Unit>(n) timestampSeries takes apart. */
export function intervalUnit(part: ir.DatePart): string {
  const unit = INTERVAL_UNITS[part];
  if (!unit) throw invalidSql(`INTERVAL unit ${part.toUpperCase()} is not supported`);
  return unit;
}

/** GENERATE_TIMESTAMP_ARRAY(start, end, INTERVAL n unit): both ends included. */
function timestampSeries(call: CallParts): string {
  const step = call.raw[2];
  if (step?.kind !== 'interval') throw invalidSql('GENERATE_TIMESTAMP_ARRAY needs an INTERVAL step');
  const unit = intervalUnit(step.unit);
  const start = `CAST(${arg(call, 0)} AS ${TIMESTAMP})`;
  const end = `CAST(${arg(call, 1)} AS ${TIMESTAMP})`;
  const count = call.args[2]!.replace(/^toInterval\w+\((.*)\)$/s, '$1');
  const steps = `range(toUInt64(greatest(0, intDiv(age('${unit.toLowerCase()}', ${start}, ${end}), ${count}) + 1)))`;
  return `arrayMap(__step -> ${start} + toInterval${unit}(__step * ${count}), ${steps})`;
}

export const FUNCTION_EMITTERS: Record<BigQueryFunction, Emitter> = {
  ...PORTABLE_EMITTERS,
  count: (call) => `toInt64(${call.star ? `count()${call.over}` : same('count')(call)})`,
  countif: int64(same('countIf')),
  any_value: same('any'),
  array_agg: (call) => `${collected(call)}(${arg(call, 0)})${call.over}`,
  string_agg: (call) => `arrayStringConcat(${collected(call)}(${arg(call, 0)})${call.over}, ${optionalArg(call, 1) ?? "','"})`,
  approx_top_count: unsupported('APPROX_TOP_COUNT'),
  approx_count_distinct: (call) => `toInt64(uniq(${arg(call, 0)})${call.over})`,
  logical_and: same('min'),
  logical_or: same('max'),
  stddev: same('stddevSamp'),
  stddev_samp: same('stddevSamp'),
  stddev_pop: same('stddevPop'),
  variance: same('varSamp'),
  var_samp: same('varSamp'),
  var_pop: same('varPop'),
  covar_pop: same('covarPop'),
  covar_samp: same('covarSamp'),
  corr: same('corr'),
  bit_and: same('groupBitAnd'),
  bit_or: same('groupBitOr'),
  bit_xor: same('groupBitXor'),
  array_concat_agg: (call) => `arrayFlatten(${collected(call)}(${arg(call, 0)})${call.over})`,

  row_number: int64(same('row_number')),
  rank: int64(same('rank')),
  dense_rank: int64(same('dense_rank')),
  ntile: int64(same('ntile')),
  // Before the first row (or past the last) BigQuery gives NULL, not the type's default.
  lag: (call) => `lagInFrame(toNullable(${arg(call, 0)}), ${optionalArg(call, 1) ?? '1'}${call.args[2] ? `, ${call.args[2]}` : ''})${call.over}`,
  lead: (call) => `leadInFrame(toNullable(${arg(call, 0)}), ${optionalArg(call, 1) ?? '1'}${call.args[2] ? `, ${call.args[2]}` : ''})${call.over}`,
  first_value: (call) => `${call.ignoreNulls ? 'first_value' : 'first_value_respect_nulls'}(${arg(call, 0)})${call.over}`,
  last_value: (call) => `${call.ignoreNulls ? 'last_value' : 'last_value_respect_nulls'}(${arg(call, 0)})${call.over}`,
  nth_value: (call) => `nth_value(toNullable(${arg(call, 0)}), ${arg(call, 1)})${call.over}`,

  ifnull: same('ifNull'),
  nullif: same('nullIf'),
  greatest: nullPropagating('greatest'),
  least: nullPropagating('least'),

  round: (call) => roundHalfAway(arg(call, 0), optionalArg(call, 1) ?? '0'),
  trunc: (call) => (call.args.length === 1 ? `trunc(${arg(call, 0)})` : `trunc(${arg(call, 0)}, ${arg(call, 1)})`),
  // ClickHouse log(x) is the natural logarithm, as BigQuery's LOG(x).
  ln: same('log'),
  log: (call) => (call.args.length === 1 ? `log(${arg(call, 0)})` : `(log(${arg(call, 0)}) / log(${arg(call, 1)}))`),
  div: (call) => `intDiv(${arg(call, 0)}, ${arg(call, 1)})`,
  safe_divide: (call) => `if(${arg(call, 1)} = 0, NULL, ${arg(call, 0)} / ${arg(call, 1)})`,

  length: int64(same('lengthUTF8')),
  char_length: int64(same('lengthUTF8')),
  character_length: int64(same('lengthUTF8')),
  lower: same('lowerUTF8'),
  upper: same('upperUTF8'),
  substr: same('substringUTF8'),
  substring: same('substringUTF8'),
  trim: (call) => (call.args.length === 1 ? `trimBoth(${arg(call, 0)})` : `trim(BOTH ${arg(call, 1)} FROM ${arg(call, 0)})`),
  ltrim: (call) => (call.args.length === 1 ? `trimLeft(${arg(call, 0)})` : `trim(LEADING ${arg(call, 1)} FROM ${arg(call, 0)})`),
  rtrim: (call) => (call.args.length === 1 ? `trimRight(${arg(call, 0)})` : `trim(TRAILING ${arg(call, 1)} FROM ${arg(call, 0)})`),
  replace: same('replaceAll'),
  starts_with: same('startsWith'),
  ends_with: same('endsWith'),
  strpos: int64(same('positionUTF8')),
  split: (call) => `splitByString(${optionalArg(call, 1) ?? "','"}, ${arg(call, 0)})`,
  split_substr: unsupported('SPLIT_SUBSTR'),
  reverse: same('reverseUTF8'),
  repeat: (call) => `repeat(${arg(call, 0)}, toUInt64(${arg(call, 1)}))`,
  lpad: padding('leftPadUTF8'),
  rpad: padding('rightPadUTF8'),
  left: (call) => `leftUTF8(${arg(call, 0)}, toInt64(${arg(call, 1)}))`,
  right: (call) => `rightUTF8(${arg(call, 0)}, toInt64(${arg(call, 1)}))`,
  regexp_contains: same('match'),
  regexp_extract: regexpExtract,
  regexp_replace: same('replaceRegexpAll'),

  regexp_extract_all: (call) => (regexpExtractGroup(call) === 0 ? same('extractAll')(call) : unsupported('REGEXP_EXTRACT_ALL with a capturing group')(call)),
  format: same('printf'),
  ascii: int64(same('ascii')),
  chr: (call) => `char(${arg(call, 0)})`,
  instr: (call) => (call.args.length > 2 ? unsupported('INSTR with a position or occurrence')(call) : int64(same('positionUTF8'))(call)),
  translate: same('translateUTF8'),

  array_length: int64(same('length')),
  array_to_string: (call) => `arrayStringConcat(${arg(call, 0)}, ${arg(call, 1)})`,
  array_concat: same('arrayConcat'),
  array_reverse: same('arrayReverse'),
  generate_array: (call) => {
    const [start, end, step] = [`toInt64(${arg(call, 0)})`, `toInt64(${arg(call, 1)})`, `toInt64(${optionalArg(call, 2) ?? '1'})`];
    return `arrayMap(__step -> ${start} + toInt64(__step) * ${step}, range(toUInt64(greatest(0, intDiv(${end} - ${start}, ${step}) + 1))))`;
  },
  generate_timestamp_array: timestampSeries,

  generate_date_array: unsupported('GENERATE_DATE_ARRAY'),
  array_is_distinct: unsupported('ARRAY_IS_DISTINCT'),

  current_timestamp: () => "now64(6, 'UTC')",
  current_datetime: (call) => wallClock("now64(6, 'UTC')", zoneArg(call, 0) ?? "'UTC'"),
  current_date: (call) => `toDate32(toTimeZone(now64(6, 'UTC'), ${zoneArg(call, 0) ?? "'UTC'"}))`,
  // TIMESTAMP(x): a string without zone, or a DATETIME, is read as UTC.
  timestamp: (call) => {
    const zone = zoneArg(call, 1);
    const value = arg(call, 0);
    if (!zone) return `if(isNull(${value}), NULL, CAST(assumeNotNull(${value}) AS ${TIMESTAMP}))`;
    return `toTimeZone(toDateTime64(toString(${value}), 6, ${zone}), 'UTC')`;
  },
  // DATETIME(ts, zone): the wall-clock time of the instant in that zone.
  datetime: (call) => wallClock(arg(call, 0), zoneArg(call, 1)),
  date: (call) => {
    const zone = zoneArg(call, 1);
    return zone ? `toDate32(toTimeZone(${arg(call, 0)}, ${zone}))` : `toDate32(${arg(call, 0)})`;
  },
  time: unsupported('TIME'),
  timestamp_trunc: (call) => {
    const zone = zoneArg(call, 2);
    if (!zone) return asTimestamp(truncate(call, arg(call, 0)));
    // Truncate the wall-clock time in that zone, then read it back as an instant there.
    return `toTimeZone(toDateTime64(${truncate(call, `toTimeZone(${arg(call, 0)}, ${zone})`)}, 6, ${zone}), 'UTC')`;
  },
  datetime_trunc: (call) => `toDateTime64(${truncate(call, arg(call, 0))}, 6)`,
  date_trunc: (call) => `toDate32(${truncate(call, arg(call, 0))})`,
  date_add: (call) => `toDate32(${arg(call, 0)} + ${arg(call, 1)})`,
  date_sub: (call) => `toDate32(${arg(call, 0)} - ${arg(call, 1)})`,
  // DATETIME/TIMESTAMP_DIFF count whole units elapsed (age), DATE_DIFF boundaries crossed.
  timestamp_diff: (call) => `toInt64(age(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)}))`,
  datetime_diff: (call) => `toInt64(age(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)}))`,
  date_diff: (call) => `toInt64(dateDiff(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)}))`,
  format_timestamp: (call) => {
    const zone = zoneArg(call, 2);
    return `formatDateTime(${arg(call, 1)}, ${arg(call, 0)}${zone ? `, ${zone}` : ''})`;
  },
  format_datetime: (call) => `formatDateTime(${arg(call, 1)}, ${arg(call, 0)})`,
  format_date: (call) => `formatDateTime(${arg(call, 1)}, ${arg(call, 0)})`,
  parse_timestamp: (call) => `parseDateTime64(${arg(call, 1)}, ${arg(call, 0)}, 'UTC')`,
  unix_seconds: (call) => `toInt64(floor(toUnixTimestamp64Micro(toDateTime64(${arg(call, 0)}, 6)) / 1000000))`,
  unix_millis: (call) => `toInt64(floor(toUnixTimestamp64Micro(toDateTime64(${arg(call, 0)}, 6)) / 1000))`,
  unix_micros: (call) => `toUnixTimestamp64Micro(toDateTime64(${arg(call, 0)}, 6))`,
  timestamp_seconds: (call) => fromMicros(`toInt64(${arg(call, 0)}) * 1000000`),
  timestamp_millis: (call) => fromMicros(`toInt64(${arg(call, 0)}) * 1000`),
  timestamp_micros: (call) => fromMicros(`toInt64(${arg(call, 0)})`),

  parse_date: (call) => `toDate32(parseDateTime(${arg(call, 1)}, ${arg(call, 0)}))`,
  unix_date: (call) => `toInt64(dateDiff('day', toDate32('1970-01-01'), toDate32(${arg(call, 0)})))`,
  date_from_unix_date: (call) => `addDays(toDate32('1970-01-01'), toInt64(${arg(call, 0)}))`,

  json_value: (call) => `JSON_VALUE(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"})`,
  json_extract_scalar: (call) => `JSON_VALUE(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"})`,
  json_extract: unsupported('JSON_EXTRACT'),
  json_query: unsupported('JSON_QUERY'),
  json_extract_array: unsupported('JSON_EXTRACT_ARRAY'),
  json_query_array: unsupported('JSON_QUERY_ARRAY'),
};
