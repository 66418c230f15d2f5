/**
 * DuckDB renderings of BigQuery's date, datetime, time and timestamp functions. Each branches on
 * the types the analyzer resolved (DATE_TRUNC of a DATETIME is a DATETIME); the calendar rules
 * are in calendar.ts, the format elements in formats.ts.
 */

import { arg, argType, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { DATE_FUNCTIONS } from '../../../sql/functions/families/date.ts';
import type { DATETIME_FUNCTIONS } from '../../../sql/functions/families/datetime.ts';
import type { TIME_FUNCTIONS } from '../../../sql/functions/families/time.ts';
import type { TIMESTAMP_FUNCTIONS } from '../../../sql/functions/families/timestamp.ts';
import type { TimeType } from '../../../sql/format-elements.ts';
import type * as ir from '../../../sql/ir.ts';
import { FIXED_PART_MICROS } from '../../../sql/functions/families/time-parts.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { civilMicros, parseTimestampText } from '../../../sql/time-literals.ts';
import { type Temporal, boundariesBetween, instantOf, offsetMinutesAt, truncateCivil, truncateTime, truncateTimestamp, unitsElapsed, wallClock, zoneArg, type ZoneArg } from './calendar.ts';
import { formatSql, literalFormat, parseSql } from './formats.ts';
import { fail } from './shared.ts';

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
      return expr.resolved?.result.kind === 'scalar' && expr.resolved.result.name === 'TIMESTAMP';
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

/** The date part keyword at `index`, and its week's first day (WEEK(MONDAY)). */
function partOf(call: CallParts, index: number): { part: ir.DatePart; weekStart?: string } {
  const raw = call.raw[index];
  if (raw?.kind !== 'date_part') throw invalidSql('expected a date part keyword');
  return { part: raw.part, ...(raw.weekStart ? { weekStart: raw.weekStart } : {}) };
}

/** BigQuery's error with a message computed per row (`message` is SQL); NULL under SAFE. */
const failWith = (call: CallParts, message: string) => (call.safe ? 'NULL' : `error(${message})`);

/** `value`, or BigQuery's out-of-range error when it falls outside [low, high]. */
function inRange(call: CallParts, value: string, low: string, high: string, message: string): string {
  return `(CASE WHEN ${value} NOT BETWEEN ${low} AND ${high} THEN ${fail(call, message)} ELSE ${value} END)`;
}

const DATE_RANGE = ["DATE '0001-01-01'", "DATE '9999-12-31'"] as const;
const DATETIME_RANGE = ["TIMESTAMP '0001-01-01'", "TIMESTAMP '9999-12-31 23:59:59.999999'"] as const;
const TIMESTAMP_RANGE = ["TIMESTAMPTZ '0001-01-01 00:00:00+00'", "TIMESTAMPTZ '9999-12-31 23:59:59.999999+00'"] as const;

/** DATE_ADD and its kin: the value moved by `INTERVAL n part`, in range for its type. */
function moved(operator: '+' | '-', primary: Temporal): Emitter {
  return (call) => {
    const value = `(${arg(call, 0)} ${operator} ${arg(call, 1)})`;
    // Of a value whose type is not known (or a call put in the tree after analysis: ClickHouse SQL's addDays), the function's first form.
    const type = argType(call, 0) ?? primary;
    return inTypeRange(call, type, type === 'DATE' ? `CAST(${value} AS DATE)` : value);
  };
}

/** A DATE, DATETIME or TIMESTAMP `value`, or BigQuery's error where it is outside its type's range (other types as they are). */
export function inTypeRange(call: CallParts, type: ir.ScalarTypeName | undefined, value: string): string {
  switch (type) {
    case 'DATE':
      return inRange(call, value, ...DATE_RANGE, 'DATE value out of range');
    case 'DATETIME':
      return inRange(call, value, ...DATETIME_RANGE, 'DATETIME out of range');
    case 'TIMESTAMP':
      return inRange(call, value, ...TIMESTAMP_RANGE, 'TIMESTAMP out of range');
    default:
      return value;
  }
}

/** DATE_DIFF and its kin: boundaries crossed for civil types, whole units elapsed for TIMESTAMP. */
const difference: Emitter = (call) => {
  const { part, weekStart } = partOf(call, 2);
  const type = argType(call, 0);
  if (type === 'TIMESTAMP') return unitsElapsed(arg(call, 0), arg(call, 1), part);
  return boundariesBetween(arg(call, 0), arg(call, 1), type === 'DATE' || type === 'TIME' ? type : 'DATETIME', part, weekStart);
};

/** DATE_TRUNC and its kin, of the first argument's type. */
const truncation: Emitter = (call) => {
  const { part, weekStart } = partOf(call, 1);
  switch (argType(call, 0)) {
    case 'DATE':
      return truncateCivil(arg(call, 0), 'DATE', part, weekStart);
    case 'TIME':
      return truncateTime(arg(call, 0), part);
    case 'TIMESTAMP':
      return fastTruncate(call) ?? truncateTimestamp(arg(call, 0), part, weekStart, zoneArg(call, 2));
    default:
      return truncateCivil(arg(call, 0), 'DATETIME', part, weekStart);
  }
};

/** A value as the wall clock FORMAT_* writes (a DuckDB TIMESTAMP), with its zone for a TIMESTAMP. */
function formatted(call: CallParts, name: string): string {
  const format = literalFormat(call.raw[0], name);
  const value = arg(call, 1);
  const type = (argType(call, 1) ?? 'TIMESTAMP') as TimeType;
  switch (type) {
    case 'DATE':
      return formatSql(format, type, { wall: `CAST(${value} AS TIMESTAMP)`, epochMicros: `epoch_us(CAST(${value} AS TIMESTAMP))` });
    case 'TIME':
      return formatSql(format, type, { wall: `(DATE '1970-01-01' + ${value})`, epochMicros: `epoch_us(${value})` });
    case 'DATETIME':
      return formatSql(format, type, { wall: value, epochMicros: `epoch_us(${value})` });
    default: {
      const zone = zoneArg(call, 2);
      return formatSql(format, 'TIMESTAMP', { wall: wallClock(value, zone), epochMicros: `epoch_us(${value})`, offsetMinutes: offsetMinutesAt(value, zone) });
    }
  }
}

/** PARSE_<type>(format, text), BigQuery's errors for text that does not fit (NULL under SAFE). */
function parsed(type: TimeType, name: string): Emitter {
  return (call) => {
    const input = arg(call, 1);
    const { matches, parts, withGroups } = parseSql(literalFormat(call.raw[0], name), type, input, name);
    const failure = failWith(call, `'Failed to parse input string "' || ${input} || '"'`);
    const value = type === 'TIMESTAMP' ? parsedInstant(call, parts) : parsedValue(type, parts.value);
    const assembled = withGroups(`CASE WHEN NOT (${parts.inRange}) THEN ${failure} WHEN NOT (${parts.validDate}) THEN ${fail(call, 'Out-of-range datetime field in parsing function')} ELSE ${value} END`);
    return `(CASE WHEN ${input} IS NULL THEN NULL WHEN NOT ${matches} THEN ${failure} ELSE ${assembled} END)`;
  };
}

function parsedValue(type: Exclude<TimeType, 'TIMESTAMP'>, value: string): string {
  if (type === 'DATE') return `CAST(DATE '1970-01-01' + CAST(${value} AS INTEGER) AS DATE)`;
  if (type === 'TIME') return `(TIME '00:00:00' + to_microseconds(${value}))`;
  return `make_timestamp(${value})`;
}

/** The instant of a parsed wall clock: shifted by %z's offset, in %Z's zone, else in the function's zone. */
function parsedInstant(call: CallParts, parts: ReturnType<typeof parseSql>['parts']): string {
  if (parts.epochSeconds) return `make_timestamptz(${parts.epochSeconds} * 1000000)`;
  if (parts.offsetMinutes) return `make_timestamptz(${parts.value} - ${parts.offsetMinutes} * 60000000)`;
  const zone: ZoneArg = parts.zoneName ? { kind: 'dynamic', sql: parts.zoneName } : zoneArg(call, 2);
  return instantOf(`make_timestamp(${parts.value})`, zone);
}

/** LAST_DAY: the day before the next period starts (weeks from their first day). */
function lastDay(call: CallParts): string {
  const date = argType(call, 0) === 'DATE' ? arg(call, 0) : `CAST(${arg(call, 0)} AS DATE)`;
  const { part, weekStart } = call.raw[1] ? partOf(call, 1) : { part: 'month' as const, weekStart: undefined };
  switch (part) {
    case 'week':
    case 'isoweek':
      return `(${truncateCivil(date, 'DATE', part, weekStart)} + 6)`;
    case 'isoyear':
      return `CAST(date_trunc('isoyear', date_trunc('isoyear', ${date}) + INTERVAL 371 DAY) - INTERVAL 1 DAY AS DATE)`;
    default:
      return `CAST(date_trunc('${part}', ${date}) + INTERVAL 1 ${part} - INTERVAL 1 DAY AS DATE)`;
  }
}

/** TIMESTAMP(string[, zone]): a literal is read here (its zone, or the argument's); other text by DuckDB's cast. */
function timestampOfText(call: CallParts): string {
  const raw = call.raw[0];
  const zone = call.raw[1] ? zoneArg(call, 1) : undefined;
  if (raw?.kind === 'string') {
    const parsed = parseTimestampText(raw.value);
    if (!parsed) throw invalidSql(`Invalid timestamp: '${raw.value}'`);
    const written = parsed.zone ?? zone ?? { kind: 'offset', minutes: 0 };
    if (written.kind === 'offset') return `make_timestamptz(${civilMicros(parsed.civil, written.minutes)})`;
    return instantOf(`make_timestamp(${civilMicros(parsed.civil)})`, written);
  }
  return zone ? instantOf(`CAST(${arg(call, 0)} AS TIMESTAMP)`, zone) : `CAST(${arg(call, 0)} AS TIMESTAMPTZ)`;
}

const toTimestamp = (micros: string) => `make_timestamptz(${micros})`;
const now = 'now()';
const asBigint = (value: string) => `CAST(${value} AS BIGINT)`;

export const DATE: Renderings<typeof DATE_FUNCTIONS> = {
  current_date: (call) => `CAST(${wallClock(now, zoneArg(call, 0))} AS DATE)`,
  date: (call) => {
    if (call.args.length === 3) return `make_date(${asBigint(arg(call, 0))}, ${asBigint(arg(call, 1))}, ${asBigint(arg(call, 2))})`;
    if (argType(call, 0) === 'TIMESTAMP') return `CAST(${wallClock(arg(call, 0), zoneArg(call, 1))} AS DATE)`;
    return `CAST(${arg(call, 0)} AS DATE)`;
  },
  date_add: moved('+', 'DATE'),
  date_diff: difference,
  date_from_unix_date: (call) => `CAST(DATE '1970-01-01' + CAST(${arg(call, 0)} AS INTEGER) AS DATE)`,
  date_sub: moved('-', 'DATE'),
  date_trunc: truncation,
  format_date: (call) => formatted(call, 'FORMAT_DATE'),
  last_day: lastDay,
  parse_date: parsed('DATE', 'PARSE_DATE'),
  unix_date: (call) => `date_diff('day', DATE '1970-01-01', ${arg(call, 0)})`,
};

export const DATETIME: Renderings<typeof DATETIME_FUNCTIONS> = {
  current_datetime: (call) => wallClock(now, zoneArg(call, 0)),
  datetime: (call) => {
    if (call.args.length === 6) {
      const [year, month, day, hour, minute] = call.args.slice(0, 5).map(asBigint);
      return `make_timestamp(${year}, ${month}, ${day}, ${hour}, ${minute}, CAST(${arg(call, 5)} AS DOUBLE))`;
    }
    if (call.args.length === 2 && argType(call, 1) === 'TIME') return `(${arg(call, 0)} + ${arg(call, 1)})`;
    if (argType(call, 0) === 'TIMESTAMP') return wallClock(arg(call, 0), zoneArg(call, 1));
    return `CAST(${arg(call, 0)} AS TIMESTAMP)`;
  },
  datetime_add: moved('+', 'DATETIME'),
  datetime_diff: difference,
  datetime_sub: moved('-', 'DATETIME'),
  datetime_trunc: truncation,
  format_datetime: (call) => formatted(call, 'FORMAT_DATETIME'),
  parse_datetime: parsed('DATETIME', 'PARSE_DATETIME'),
};

export const TIME: Renderings<typeof TIME_FUNCTIONS> = {
  current_time: (call) => `CAST(${wallClock(now, zoneArg(call, 0))} AS TIME)`,
  format_time: (call) => formatted(call, 'FORMAT_TIME'),
  parse_time: parsed('TIME', 'PARSE_TIME'),
  time: (call) => {
    if (call.args.length === 3) return `make_time(${asBigint(arg(call, 0))}, ${asBigint(arg(call, 1))}, CAST(${arg(call, 2)} AS DOUBLE))`;
    if (argType(call, 0) === 'TIMESTAMP') return `CAST(${wallClock(arg(call, 0), zoneArg(call, 1))} AS TIME)`;
    return `CAST(${arg(call, 0)} AS TIME)`;
  },
  time_add: (call) => `(${arg(call, 0)} + ${arg(call, 1)})`,
  time_diff: difference,
  time_sub: (call) => `(${arg(call, 0)} - ${arg(call, 1)})`,
  time_trunc: truncation,
};

export const TIMESTAMP: Renderings<typeof TIMESTAMP_FUNCTIONS> = {
  current_timestamp: () => now,
  format_timestamp: (call) => formatted(call, 'FORMAT_TIMESTAMP'),
  parse_timestamp: parsed('TIMESTAMP', 'PARSE_TIMESTAMP'),
  timestamp: (call) => {
    switch (argType(call, 0)) {
      case 'TIMESTAMP':
        return arg(call, 0);
      case 'DATE':
        return instantOf(`CAST(${arg(call, 0)} AS TIMESTAMP)`, zoneArg(call, 1));
      case 'DATETIME':
        return instantOf(arg(call, 0), zoneArg(call, 1));
      default:
        return timestampOfText(call);
    }
  },
  timestamp_add: moved('+', 'TIMESTAMP'),
  timestamp_diff: difference,
  timestamp_micros: (call) => toTimestamp(asBigint(arg(call, 0))),
  timestamp_millis: (call) => toTimestamp(`${asBigint(arg(call, 0))} * 1000`),
  timestamp_seconds: (call) => toTimestamp(`${asBigint(arg(call, 0))} * 1000000`),
  timestamp_sub: moved('-', 'TIMESTAMP'),
  timestamp_trunc: truncation,
  unix_micros: (call) => `epoch_us(${arg(call, 0)})`,
  unix_millis: (call) => `epoch_ms(${arg(call, 0)})`,
  unix_seconds: (call) => `CAST(floor(epoch_us(${arg(call, 0)}) / 1000000) AS BIGINT)`,
};

