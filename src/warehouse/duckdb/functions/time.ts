/** DuckDB renderings of BigQuery's date, datetime, time and timestamp functions. */

import { arg, datePartName, optionalArg, PORTABLE_EMITTERS, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { DATE_FUNCTIONS } from '../../../sql/functions/families/date.ts';
import type { DATETIME_FUNCTIONS } from '../../../sql/functions/families/datetime.ts';
import type { TIME_FUNCTIONS } from '../../../sql/functions/families/time.ts';
import type { TIMESTAMP_FUNCTIONS } from '../../../sql/functions/families/timestamp.ts';
import type * as ir from '../../../sql/ir.ts';
import { FIXED_PART_MICROS } from '../../../sql/output-limits.ts';
import { invalidSql } from '../../../sql/parse.ts';

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

const dateArithmetic =
  (operator: '+' | '-'): Emitter =>
  (call) =>
    `CAST((${arg(call, 0)} ${operator} ${arg(call, 1)}) AS DATE)`;

/** DATETIME/TIMESTAMP_DIFF count whole units elapsed (DuckDB date_sub), not boundaries crossed. */
const elapsedUnits: Emitter = (call) => `date_sub(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)})`;

/** TIMESTAMP_TRUNC and friends; BigQuery WEEK starts on Sunday, DuckDB's on Monday. */
function truncate(call: CallParts, value: string): string {
  const raw = call.raw[1];
  if (raw?.kind === 'date_part' && raw.weekStart !== undefined && raw.weekStart !== 'sunday') throw invalidSql('WEEK(<weekday>) is not supported');
  if (raw?.kind === 'date_part' && raw.part === 'week') {
    return `(date_trunc('week', ${value} + INTERVAL 1 DAY) - INTERVAL 1 DAY)`;
  }
  return `date_trunc(${datePartName(call, 1)}, ${value})`;
}

/** DATETIME arithmetic past year 9999 or before year 1 is an error in BigQuery; DuckDB goes on. */
const datetimeInRange =
  (operator: '+' | '-'): Emitter =>
  (call) => {
    const value = `(${arg(call, 0)} ${operator} ${arg(call, 1)})`;
    return `(CASE WHEN ${value} NOT BETWEEN TIMESTAMP '0001-01-01' AND TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('DATETIME out of range') ELSE ${value} END)`;
  };

const toTimestamp = (micros: string) => `CAST(make_timestamp(${micros}) AS TIMESTAMPTZ)`;

export const DATE: Renderings<typeof DATE_FUNCTIONS> = {
  current_date: (call) => `CAST(timezone(${optionalArg(call, 0) ?? "'UTC'"}, now()) AS DATE)`,
  date: (call) =>
    call.args.length === 1
      ? `CAST(${arg(call, 0)} AS DATE)`
      : `CAST(timezone(${arg(call, 1)}, CAST(${arg(call, 0)} AS TIMESTAMPTZ)) AS DATE)`,
  date_add: dateArithmetic('+'),
  date_diff: (call) => `date_diff(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)})`,
  date_from_unix_date: (call) => `CAST(DATE '1970-01-01' + CAST(${arg(call, 0)} AS INTEGER) AS DATE)`,
  date_sub: dateArithmetic('-'),
  date_trunc: (call) => `CAST(${truncate(call, arg(call, 0))} AS DATE)`,
  format_date: (call) => `strftime(${arg(call, 1)}, ${arg(call, 0)})`,
  parse_date: (call) => `CAST(strptime(${arg(call, 1)}, ${arg(call, 0)}) AS DATE)`,
  unix_date: (call) => `date_diff('day', DATE '1970-01-01', CAST(${arg(call, 0)} AS DATE))`,
};

export const DATETIME: Renderings<typeof DATETIME_FUNCTIONS> = {
  current_datetime: (call) => `timezone(${optionalArg(call, 0) ?? "'UTC'"}, now())`,
  // DATETIME(ts, zone): the wall-clock time of the instant in that zone, as a TIMESTAMP.
  datetime: (call) =>
    fastUtcDatetime(call) ??
    (call.args.length === 1
      ? `CAST(${arg(call, 0)} AS TIMESTAMP)`
      : `timezone(${arg(call, 1)}, CAST(${arg(call, 0)} AS TIMESTAMPTZ))`),
  datetime_add: datetimeInRange('+'),
  datetime_diff: elapsedUnits,
  datetime_sub: datetimeInRange('-'),
  datetime_trunc: (call) => truncate(call, arg(call, 0)),
  format_datetime: (call) => `strftime(${arg(call, 1)}, ${arg(call, 0)})`,
};

export const TIME: Renderings<typeof TIME_FUNCTIONS> = {
  // TIME(ts[, zone]): the wall-clock time; TIME(datetime); TIME(hour, minute, second).
  time: (call) => {
    if (call.args.length === 3) return `make_time(CAST(${arg(call, 0)} AS BIGINT), CAST(${arg(call, 1)} AS BIGINT), CAST(${arg(call, 2)} AS DOUBLE))`;
    const zone = optionalArg(call, 1);
    return zone ? `CAST(timezone(${zone}, CAST(${arg(call, 0)} AS TIMESTAMPTZ)) AS TIME)` : `CAST(${arg(call, 0)} AS TIME)`;
  },
};

export const TIMESTAMP: Renderings<typeof TIMESTAMP_FUNCTIONS> = {
  current_timestamp: () => 'now()',
  format_timestamp: (call) => {
    const zone = optionalArg(call, 2);
    const value = zone ? `timezone(${zone}, ${arg(call, 1)})` : arg(call, 1);
    return `strftime(${value}, ${arg(call, 0)})`;
  },
  parse_timestamp: (call) => `CAST(strptime(${arg(call, 1)}, ${arg(call, 0)}) AS TIMESTAMPTZ)`,
  // TIMESTAMP(x): a string without zone, or a DATETIME, is read as UTC (the session zone).
  timestamp: (call) =>
    call.args.length === 1
      ? `CAST(${arg(call, 0)} AS TIMESTAMPTZ)`
      : `timezone(${arg(call, 1)}, CAST(${arg(call, 0)} AS TIMESTAMP))`,
  timestamp_add: PORTABLE_EMITTERS.timestamp_add,
  timestamp_diff: elapsedUnits,
  timestamp_micros: (call) => toTimestamp(`CAST(${arg(call, 0)} AS BIGINT)`),
  timestamp_millis: (call) => toTimestamp(`CAST(${arg(call, 0)} AS BIGINT) * 1000`),
  timestamp_seconds: (call) => toTimestamp(`CAST(${arg(call, 0)} AS BIGINT) * 1000000`),
  timestamp_sub: PORTABLE_EMITTERS.timestamp_sub,
  timestamp_trunc: (call) => {
    const fast = fastTruncate(call);
    if (fast) return fast;
    const zone = optionalArg(call, 2);
    if (!zone) return truncate(call, arg(call, 0));
    // Truncate the wall-clock time in that zone, then read it back as an instant there.
    return `timezone(${zone}, ${truncate(call, `timezone(${zone}, ${arg(call, 0)})`)})`;
  },
  unix_micros: (call) => `epoch_us(${arg(call, 0)})`,
  unix_millis: (call) => `epoch_ms(${arg(call, 0)})`,
  unix_seconds: (call) => `CAST(floor(epoch(${arg(call, 0)})) AS BIGINT)`,
};
