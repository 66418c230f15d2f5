/**
 * DuckDB spelling of every allow-listed BigQuery function (src/sql/functions.ts): those every
 * engine spells alike come from PORTABLE_EMITTERS (src/sql/emitters.ts), the rest are here. The
 * Record type makes a function added to the allow-list without a DuckDB mapping a compile error.
 */

import type { BigQueryFunction } from '../../sql/functions.ts';
import { arg, datePartName, optionalArg, PORTABLE_EMITTERS, regexpExtractGroup, same, type CallParts, type Emitter } from '../../sql/emitters.ts';
import type * as ir from '../../sql/ir.ts';
import { invalidSql } from '../../sql/parse.ts';
import { FIXED_PART_MICROS, MAX_GENERATED_ARRAY_ELEMENTS, tooManyElements } from '../../sql/output-limits.ts';
import { generateArray, generateTimestampArray, padding, repeat, replace } from './bounded-functions.ts';

/**
 * Refs that read a source's fixed `timestamp` column (TIMESTAMPTZ), marked by the printer
 * (sql-generator.ts markSourceTimestamps) before it prints the expressions of a SELECT.
 */
export const sourceTimestampRefs = new WeakSet<ir.Expr>();

/** Whether the expression is certainly a TIMESTAMPTZ in the printed SQL. */
export function isTimestampTz(expr: ir.Expr | undefined): boolean {
  if (!expr) return false;
  switch (expr.kind) {
    case 'ref':
      return sourceTimestampRefs.has(expr);
    case 'cast':
    case 'typed_literal':
      return expr.type === 'TIMESTAMP';
    case 'case': {
      const results = [...expr.whens.map((when) => when.then), ...(expr.else ? [expr.else] : [])];
      return results.some((result) => result.kind !== 'null') && results.every((result) => result.kind === 'null' || isTimestampTz(result));
    }
    case 'call':
      switch (expr.fn) {
        case 'current_timestamp':
        case 'timestamp':
        case 'timestamp_seconds':
        case 'timestamp_millis':
        case 'timestamp_micros':
          return true;
        case 'timestamp_trunc':
        case 'timestamp_add':
        case 'timestamp_sub':
          return isTimestampTz(expr.args[0]);
        default:
          return false;
      }
    default:
      return false;
  }
}

const isUtc = (expr: ir.Expr | undefined) => expr === undefined || (expr.kind === 'string' && expr.value === 'UTC');


/**
 * TIMESTAMP_TRUNC of a stored event timestamp to a fixed-length part, in UTC, as arithmetic on
 * epoch microseconds (floored, so instants before 1970 round down too). DuckDB's date_trunc on
 * TIMESTAMPTZ goes through ICU's calendar: about 190 ns a row, against about 20 ns for this (so
 * 25 of the 117 ms of functions.invocation-stats at 1M events). Only for refs, which may be
 * printed twice.
 */
function fastTruncate(call: CallParts): string | undefined {
  const [value, part, zone] = call.raw;
  if (!value || value.kind !== 'ref' || !isTimestampTz(value) || part?.kind !== 'date_part' || !isUtc(zone)) return undefined;
  const unit = FIXED_PART_MICROS[part.part];
  if (unit === undefined) return undefined;
  if (unit === 1) return arg(call, 0);
  const micros = `epoch_us(${arg(call, 0)})`;
  return `make_timestamptz(${micros} - ((${micros} % ${unit}) + ${unit}) % ${unit})`;
}

/** DATETIME(ts, 'UTC') or DATETIME(ts) of a TIMESTAMPTZ: the same microseconds, without ICU. */
function fastUtcDatetime(call: CallParts): string | undefined {
  const [value, zone] = call.raw;
  if (!isTimestampTz(value) || !isUtc(zone)) return undefined;
  return `make_timestamp(epoch_us(${arg(call, 0)}))`;
}

/** BigQuery's GREATEST/LEAST return NULL when any argument is NULL; DuckDB's skip NULLs. */
const nullPropagating =
  (name: string): Emitter =>
  (call) =>
    `(CASE WHEN ${call.args.map((value) => `${value} IS NULL`).join(' OR ')} THEN NULL ELSE ${name}(${call.args.join(', ')}) END)`;

const dateArithmetic =
  (operator: '+' | '-'): Emitter =>
  (call) =>
    `CAST((${arg(call, 0)} ${operator} ${arg(call, 1)}) AS DATE)`;

/** DATETIME/TIMESTAMP_DIFF count whole units elapsed (DuckDB date_sub), not boundaries crossed. */
const elapsedUnits: Emitter = (call) => `date_sub(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)})`;

/** TIMESTAMP_TRUNC and friends; BigQuery WEEK starts on Sunday, DuckDB's on Monday. */
function truncate(call: CallParts, value: string): string {
  const raw = call.raw[1];
  if (raw?.kind === 'date_part' && raw.part === 'week') {
    return `(date_trunc('week', ${value} + INTERVAL 1 DAY) - INTERVAL 1 DAY)`;
  }
  return `date_trunc(${datePartName(call, 1)}, ${value})`;
}

/** NULL where the pattern does not match (DuckDB's regexp_extract gives ''). */
function regexpExtract(call: CallParts): string {
  const group = regexpExtractGroup(call);
  const [value, regex] = [arg(call, 0), arg(call, 1)];
  return `(CASE WHEN regexp_matches(${value}, ${regex}) THEN regexp_extract(${value}, ${regex}, ${group}) END)`;
}

/** BigQuery's CORR and COVAR_SAMP are NULL below two pairs (DuckDB's CORR gives NaN). */
const pairStatistic =
  (name: string, minimumPairs: number): Emitter =>
  (call) =>
    `(CASE WHEN regr_count(${arg(call, 0)}, ${arg(call, 1)})${call.over} < ${minimumPairs} THEN NULL ELSE ${name}(${arg(call, 0)}, ${arg(call, 1)})${call.over} END)`;

/** A JSON value at a JSONPath as JSON text, NULL where there is none (JSON_EXTRACT, JSON_QUERY). */
const jsonText: Emitter = (call) => `CAST(json_extract(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"}) AS VARCHAR)`;

/** The elements of a JSON array at a JSONPath, each as JSON text; NULL when it is not an array. */
const jsonArray: Emitter = (call) => {
  const [json, path] = [arg(call, 0), optionalArg(call, 1) ?? "'$'"];
  return `(CASE WHEN json_type(${json}, ${path}) = 'ARRAY' THEN CAST(CAST(json_extract(${json}, ${path}) AS JSON[]) AS VARCHAR[]) END)`;
};

/**
 * The list an ARRAY_AGG-like aggregate collects: in its ORDER BY, without NULLs when asked (LIMIT
 * is applied by `limited`, as DuckDB's list() has none).
 */
function collected(call: CallParts, skipNulls: boolean): string {
  const value = arg(call, 0);
  return `list(${call.distinct}${value}${call.orderBy})${skipNulls ? ` FILTER (WHERE ${value} IS NOT NULL)` : ''}${call.over}`;
}

const limited = (call: CallParts, list: string) => (call.limit === undefined ? list : `(${list})[1:${call.limit}]`);

/**
 * APPROX_TOP_COUNT(x, n), exactly: the n most frequent values (NULL counts as one) with their
 * counts, most frequent first, as [{value, count}]; NULL over no rows. histogram() counts the
 * values but skips NULL, so NULL's count is added from count(*) - count(x). Sorting on the
 * negated count (then the value) puts the most frequent first.
 */
function approxTopCount(call: CallParts): string {
  const [value, n] = [arg(call, 0), arg(call, 1)];
  const rows = `count(*)${call.over}`;
  const nulls = `(${rows} - count(${value})${call.over})`;
  const counted = `list_transform(map_entries(histogram(${value})${call.over}), e -> {'c': -CAST(e.value AS BIGINT), 'v': e.key})`;
  const withNull = `list_concat(${counted}, CASE WHEN ${nulls} > 0 THEN [{'c': -${nulls}, 'v': NULL}] ELSE [] END)`;
  const top = `list_transform(list_sort(${withNull})[1:CAST(${n} AS BIGINT)], e -> {'value': e.v, 'count': -e.c})`;
  return `(CASE WHEN ${rows} = 0 THEN NULL ELSE ${top} END)`;
}

/** FIRST_VALUE(x IGNORE NULLS) and the like. */
const nullTreatment =
  (name: string): Emitter =>
  (call) =>
    `${name}(${call.args.join(', ')}${call.ignoreNulls ? ' IGNORE NULLS' : ''})${call.over}`;

/**
 * SPLIT_SUBSTR(value, delimiter, start[, count]): `count` parts (all by default) from the
 * 1-based part `start` (0 reads as 1, a negative one counts from the end, clamped to the first),
 * joined again by the delimiter.
 */
function splitSubstr(call: CallParts): string {
  const [value, delimiter, start] = [arg(call, 0), arg(call, 1), `CAST(${arg(call, 2)} AS BIGINT)`];
  const parts = `string_split(${value}, ${delimiter})`;
  const first = `(CASE WHEN ${start} > 0 THEN ${start} WHEN ${start} = 0 THEN 1 ELSE greatest(len(${parts}) + ${start} + 1, 1) END)`;
  const count = call.args[3] === undefined ? `len(${parts})` : `CAST(${call.args[3]} AS BIGINT)`;
  const nulls = [value, delimiter, start, count].map((part) => `${part} IS NULL`).join(' OR ');
  return `(CASE WHEN ${nulls} THEN NULL WHEN ${count} < 0 THEN error('SPLIT_SUBSTR count cannot be negative') ELSE array_to_string(${parts}[${first} : ${first} + ${count} - 1], ${delimiter}) END)`;
}

/** BigQuery raises an error for a negative length where DuckDB counts from the end. */
function nonNegative(call: CallParts, index: number, what: string, value: string): string {
  const length = optionalArg(call, index);
  if (length === undefined || call.raw[index]?.kind === 'number') return value;
  return `(CASE WHEN ${length} < 0 THEN error('${what} cannot be negative') ELSE ${value} END)`;
}

/** DATETIME arithmetic past year 9999 or before year 1 is an error in BigQuery; DuckDB goes on. */
const datetimeInRange =
  (operator: '+' | '-'): Emitter =>
  (call) => {
    const value = `(${arg(call, 0)} ${operator} ${arg(call, 1)})`;
    return `(CASE WHEN ${value} NOT BETWEEN TIMESTAMP '0001-01-01' AND TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('DATETIME out of range') ELSE ${value} END)`;
  };

const toTimestamp = (micros: string) => `CAST(make_timestamp(${micros}) AS TIMESTAMPTZ)`;

export const FUNCTION_EMITTERS: Record<BigQueryFunction, Emitter> = {
  ...PORTABLE_EMITTERS,
  count: (call) => (call.star ? `count(*)${call.over}` : same('count')(call)),
  // 0 over no rows, as COUNT (DuckDB's count_if gives NULL there).
  countif: (call) => `coalesce(${same('count_if')(call)}, 0)`,
  any_value: same('any_value'),
  array_agg: (call) => limited(call, collected(call, call.ignoreNulls)),
  string_agg: (call) => {
    const separator = optionalArg(call, 1) ?? "','";
    if (call.limit !== undefined) return `array_to_string(${limited(call, collected(call, true))}, ${separator})`;
    return `string_agg(${call.distinct}${arg(call, 0)}, ${separator}${call.orderBy})${call.over}`;
  },
  approx_count_distinct: same('approx_count_distinct'),
  approx_top_count: approxTopCount,
  logical_and: same('bool_and'),
  logical_or: same('bool_or'),
  stddev: same('stddev_samp'),
  stddev_samp: same('stddev_samp'),
  stddev_pop: same('stddev_pop'),
  variance: same('var_samp'),
  var_samp: same('var_samp'),
  var_pop: same('var_pop'),
  covar_pop: (call) => `covar_pop(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  covar_samp: pairStatistic('covar_samp', 2),
  corr: pairStatistic('corr', 2),
  bit_and: same('bit_and'),
  bit_or: same('bit_or'),
  bit_xor: same('bit_xor'),
  // NULL arrays are skipped; no rows (or only NULL arrays) give NULL.
  array_concat_agg: (call) => `flatten(${limited(call, collected(call, true))})`,

  row_number: same('row_number'),
  rank: same('rank'),
  dense_rank: same('dense_rank'),
  ntile: same('ntile'),
  lag: same('lag'),
  lead: same('lead'),
  first_value: nullTreatment('first_value'),
  last_value: nullTreatment('last_value'),
  nth_value: nullTreatment('nth_value'),

  ifnull: same('coalesce'),
  nullif: same('nullif'),
  greatest: nullPropagating('greatest'),
  least: nullPropagating('least'),

  round: (call) => (call.args.length === 1 ? `round(${arg(call, 0)})` : `round(${arg(call, 0)}, CAST(${arg(call, 1)} AS INTEGER))`),
  trunc: (call) => (call.args.length === 1 ? `trunc(${arg(call, 0)})` : `trunc(${arg(call, 0)}, CAST(${arg(call, 1)} AS INTEGER))`),
  ln: same('ln'),
  // BigQuery LOG(x) is the natural logarithm; DuckDB's log(x) is base 10.
  log: (call) => (call.args.length === 1 ? `ln(${arg(call, 0)})` : `(ln(${arg(call, 0)}) / ln(${arg(call, 1)}))`),
  div: (call) => `(${arg(call, 0)} // ${arg(call, 1)})`,
  safe_divide: (call) => `(CASE WHEN ${arg(call, 1)} = 0 THEN NULL ELSE ${arg(call, 0)} / ${arg(call, 1)} END)`,

  length: same('length'),
  char_length: same('length'),
  character_length: same('length'),
  lower: same('lower'),
  upper: same('upper'),
  substr: (call) => nonNegative(call, 2, 'SUBSTR length', same('substring')(call)),
  substring: (call) => nonNegative(call, 2, 'SUBSTR length', same('substring')(call)),
  trim: same('trim'),
  ltrim: same('ltrim'),
  rtrim: same('rtrim'),
  replace,
  starts_with: same('starts_with'),
  ends_with: same('ends_with'),
  strpos: same('strpos'),
  // SPLIT with a NULL separator is NULL (DuckDB's string_split splits into characters).
  split: (call) => {
    const separator = optionalArg(call, 1) ?? "','";
    const split = `string_split(${arg(call, 0)}, ${separator})`;
    return call.raw[1] === undefined || call.raw[1].kind === 'string' ? split : `(CASE WHEN ${separator} IS NOT NULL THEN ${split} END)`;
  },
  split_substr: splitSubstr,
  reverse: same('reverse'),
  repeat,
  lpad: padding('lpad'),
  rpad: padding('rpad'),
  left: (call) => nonNegative(call, 1, 'LEFT length', same('left')(call)),
  right: (call) => nonNegative(call, 1, 'RIGHT length', same('right')(call)),
  regexp_contains: same('regexp_matches'),
  regexp_extract: regexpExtract,
  // BigQuery replaces every match; DuckDB only the first unless asked with 'g'.
  regexp_replace: (call) => `regexp_replace(${arg(call, 0)}, ${arg(call, 1)}, ${arg(call, 2)}, 'g')`,

  regexp_extract_all: (call) => `regexp_extract_all(${arg(call, 0)}, ${arg(call, 1)}, ${regexpExtractGroup(call)})`,
  format: same('printf'),
  ascii: same('ascii'),
  chr: (call) => `chr(CAST(${arg(call, 0)} AS INTEGER))`,
  instr: (call) => {
    if (call.args.length > 2) throw invalidSql('INSTR with a position or occurrence is not supported');
    return `CAST(instr(${arg(call, 0)}, ${arg(call, 1)}) AS BIGINT)`;
  },
  translate: same('translate'),

  array_length: same('len'),
  array_to_string: (call) => `array_to_string(${arg(call, 0)}, ${arg(call, 1)})`,
  array_concat: (call) => `(${call.args.join(' || ')})`,
  array_reverse: same('list_reverse'),
  generate_array: generateArray,
  generate_timestamp_array: generateTimestampArray,

  // Bounded like GENERATE_ARRAY (output-limits.ts): the step measured in days from the start.
  generate_date_array: (call) => {
    const [start, end, step] = [`CAST(${arg(call, 0)} AS DATE)`, `CAST(${arg(call, 1)} AS DATE)`, optionalArg(call, 2) ?? 'INTERVAL 1 DAY'];
    const stepDays = `date_diff('day', ${start}, CAST(${start} + ${step} AS DATE))`;
    const tooLong = `${stepDays} <> 0 AND CAST(date_diff('day', ${start}, ${end}) AS DOUBLE) / ${stepDays} >= ${MAX_GENERATED_ARRAY_ELEMENTS}`;
    const series = `CAST(generate_series(${start}, ${end}, ${step}) AS DATE[])`;
    return `(CASE WHEN ${step} = INTERVAL 0 DAY THEN error('GENERATE_DATE_ARRAY step cannot be 0') WHEN ${tooLong} THEN error('${tooManyElements('generate_date_array')}') ELSE ${series} END)`;
  },
  // BigQuery counts a NULL element as one value.
  array_is_distinct: (call) => {
    const list = arg(call, 0);
    return `(len(list_distinct(${list})) + least(len(${list}) - list_count(${list}), 1) = len(${list}))`;
  },

  current_timestamp: () => 'now()',
  current_datetime: (call) => `timezone(${optionalArg(call, 0) ?? "'UTC'"}, now())`,
  current_date: (call) => `CAST(timezone(${optionalArg(call, 0) ?? "'UTC'"}, now()) AS DATE)`,
  // TIMESTAMP(x): a string without zone, or a DATETIME, is read as UTC (the session zone).
  timestamp: (call) =>
    call.args.length === 1
      ? `CAST(${arg(call, 0)} AS TIMESTAMPTZ)`
      : `timezone(${arg(call, 1)}, CAST(${arg(call, 0)} AS TIMESTAMP))`,
  // DATETIME(ts, zone): the wall-clock time of the instant in that zone, as a TIMESTAMP.
  datetime: (call) =>
    fastUtcDatetime(call) ??
    (call.args.length === 1
      ? `CAST(${arg(call, 0)} AS TIMESTAMP)`
      : `timezone(${arg(call, 1)}, CAST(${arg(call, 0)} AS TIMESTAMPTZ))`),
  date: (call) =>
    call.args.length === 1
      ? `CAST(${arg(call, 0)} AS DATE)`
      : `CAST(timezone(${arg(call, 1)}, CAST(${arg(call, 0)} AS TIMESTAMPTZ)) AS DATE)`,
  // TIME(ts[, zone]): the wall-clock time; TIME(datetime); TIME(hour, minute, second).
  time: (call) => {
    if (call.args.length === 3) return `make_time(CAST(${arg(call, 0)} AS BIGINT), CAST(${arg(call, 1)} AS BIGINT), CAST(${arg(call, 2)} AS DOUBLE))`;
    const zone = optionalArg(call, 1);
    return zone ? `CAST(timezone(${zone}, CAST(${arg(call, 0)} AS TIMESTAMPTZ)) AS TIME)` : `CAST(${arg(call, 0)} AS TIME)`;
  },
  timestamp_trunc: (call) => {
    const fast = fastTruncate(call);
    if (fast) return fast;
    const zone = optionalArg(call, 2);
    if (!zone) return truncate(call, arg(call, 0));
    // Truncate the wall-clock time in that zone, then read it back as an instant there.
    return `timezone(${zone}, ${truncate(call, `timezone(${zone}, ${arg(call, 0)})`)})`;
  },
  datetime_trunc: (call) => truncate(call, arg(call, 0)),
  date_trunc: (call) => `CAST(${truncate(call, arg(call, 0))} AS DATE)`,
  datetime_add: datetimeInRange('+'),
  datetime_sub: datetimeInRange('-'),
  date_add: dateArithmetic('+'),
  date_sub: dateArithmetic('-'),
  timestamp_diff: elapsedUnits,
  datetime_diff: elapsedUnits,
  date_diff: (call) => `date_diff(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)})`,
  format_timestamp: (call) => {
    const zone = optionalArg(call, 2);
    const value = zone ? `timezone(${zone}, ${arg(call, 1)})` : arg(call, 1);
    return `strftime(${value}, ${arg(call, 0)})`;
  },
  format_datetime: (call) => `strftime(${arg(call, 1)}, ${arg(call, 0)})`,
  format_date: (call) => `strftime(${arg(call, 1)}, ${arg(call, 0)})`,
  parse_timestamp: (call) => `CAST(strptime(${arg(call, 1)}, ${arg(call, 0)}) AS TIMESTAMPTZ)`,
  unix_seconds: (call) => `CAST(floor(epoch(${arg(call, 0)})) AS BIGINT)`,
  unix_millis: (call) => `epoch_ms(${arg(call, 0)})`,
  unix_micros: (call) => `epoch_us(${arg(call, 0)})`,
  timestamp_seconds: (call) => toTimestamp(`CAST(${arg(call, 0)} AS BIGINT) * 1000000`),
  timestamp_millis: (call) => toTimestamp(`CAST(${arg(call, 0)} AS BIGINT) * 1000`),
  timestamp_micros: (call) => toTimestamp(`CAST(${arg(call, 0)} AS BIGINT)`),

  parse_date: (call) => `CAST(strptime(${arg(call, 1)}, ${arg(call, 0)}) AS DATE)`,
  unix_date: (call) => `date_diff('day', DATE '1970-01-01', CAST(${arg(call, 0)} AS DATE))`,
  date_from_unix_date: (call) => `CAST(DATE '1970-01-01' + CAST(${arg(call, 0)} AS INTEGER) AS DATE)`,

  json_value: (call) => `json_extract_string(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"})`,
  json_extract_scalar: (call) => `json_extract_string(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"})`,
  json_extract: jsonText,
  json_query: jsonText,
  json_extract_array: jsonArray,
  json_query_array: jsonArray,
};
