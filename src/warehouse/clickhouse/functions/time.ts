/** ClickHouse renderings of BigQuery's date, datetime, time and timestamp functions. */

import { arg, datePartName, optionalArg, PORTABLE_EMITTERS, unsupported, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { DATE_FUNCTIONS } from '../../../sql/functions/families/date.ts';
import type { DATETIME_FUNCTIONS } from '../../../sql/functions/families/datetime.ts';
import type { TIME_FUNCTIONS } from '../../../sql/functions/families/time.ts';
import type { TIMESTAMP_FUNCTIONS } from '../../../sql/functions/families/timestamp.ts';
import type * as ir from '../../../sql/ir.ts';
import { invalidSql } from '../../../sql/parse.ts';

export const TIMESTAMP = "DateTime64(6, 'UTC')";
const asTimestamp = (value: string) => `toDateTime64(${value}, 6, 'UTC')`;
/** A DATETIME: the wall clock, as a DateTime64 without the explicit 'UTC' that marks TIMESTAMP. */
const wallClock = (value: string, zone?: string) => `toDateTime64(toString(${value}${zone ? `, ${zone}` : ''}), 6)`;
const fromMicros = (micros: string) => `fromUnixTimestamp64Micro(${micros}, 'UTC')`;

/** The first instant of the part containing `value`, as ClickHouse returns it (DateTime or Date). */
function truncate(call: CallParts, value: string): string {
  const raw = call.raw[1];
  if (raw?.kind !== 'date_part') throw invalidSql('expected a date part keyword');
  if (raw.weekStart !== undefined && raw.weekStart !== 'sunday') throw invalidSql('WEEK(<weekday>) is not supported');
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

/** Shared with the printer's INTERVAL, whose toInterval<Unit>(n) GENERATE_TIMESTAMP_ARRAY takes apart. */
export function intervalUnit(part: ir.DatePart): string {
  const unit = INTERVAL_UNITS[part];
  if (!unit) throw invalidSql(`INTERVAL unit ${part.toUpperCase()} is not supported`);
  return unit;
}

export const DATE: Renderings<typeof DATE_FUNCTIONS> = {
  current_date: (call) => `toDate32(toTimeZone(now64(6, 'UTC'), ${zoneArg(call, 0) ?? "'UTC'"}))`,
  date: (call) => {
    const zone = zoneArg(call, 1);
    return zone ? `toDate32(toTimeZone(${arg(call, 0)}, ${zone}))` : `toDate32(${arg(call, 0)})`;
  },
  date_add: (call) => `toDate32(${arg(call, 0)} + ${arg(call, 1)})`,
  // DATE_DIFF counts boundaries crossed (dateDiff), DATETIME/TIMESTAMP_DIFF whole units elapsed (age).
  date_diff: (call) => `toInt64(dateDiff(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)}))`,
  date_from_unix_date: (call) => `addDays(toDate32('1970-01-01'), toInt64(${arg(call, 0)}))`,
  date_sub: (call) => `toDate32(${arg(call, 0)} - ${arg(call, 1)})`,
  date_trunc: (call) => `toDate32(${truncate(call, arg(call, 0))})`,
  format_date: (call) => `formatDateTime(${arg(call, 1)}, ${arg(call, 0)})`,
  parse_date: (call) => `toDate32(parseDateTime(${arg(call, 1)}, ${arg(call, 0)}))`,
  unix_date: (call) => `toInt64(dateDiff('day', toDate32('1970-01-01'), toDate32(${arg(call, 0)})))`,
};

export const DATETIME: Renderings<typeof DATETIME_FUNCTIONS> = {
  current_datetime: (call) => wallClock("now64(6, 'UTC')", zoneArg(call, 0) ?? "'UTC'"),
  // DATETIME(ts, zone): the wall-clock time of the instant in that zone.
  datetime: (call) => wallClock(arg(call, 0), zoneArg(call, 1)),
  datetime_add: PORTABLE_EMITTERS.datetime_add,
  datetime_diff: (call) => `toInt64(age(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)}))`,
  datetime_sub: PORTABLE_EMITTERS.datetime_sub,
  datetime_trunc: (call) => `toDateTime64(${truncate(call, arg(call, 0))}, 6)`,
  format_datetime: (call) => `formatDateTime(${arg(call, 1)}, ${arg(call, 0)})`,
};

export const TIME: Renderings<typeof TIME_FUNCTIONS> = {
  time: unsupported('TIME values are not mapped to ClickHouse yet'),
};

export const TIMESTAMP_RENDERINGS: Renderings<typeof TIMESTAMP_FUNCTIONS> = {
  current_timestamp: () => "now64(6, 'UTC')",
  format_timestamp: (call) => {
    const zone = zoneArg(call, 2);
    return `formatDateTime(${arg(call, 1)}, ${arg(call, 0)}${zone ? `, ${zone}` : ''})`;
  },
  parse_timestamp: (call) => `parseDateTime64(${arg(call, 1)}, ${arg(call, 0)}, 'UTC')`,
  // TIMESTAMP(x): a string without zone, or a DATETIME, is read as UTC.
  timestamp: (call) => {
    const zone = zoneArg(call, 1);
    const value = arg(call, 0);
    if (!zone) return `if(isNull(${value}), NULL, CAST(assumeNotNull(${value}) AS ${TIMESTAMP}))`;
    return `toTimeZone(toDateTime64(toString(${value}), 6, ${zone}), 'UTC')`;
  },
  timestamp_add: PORTABLE_EMITTERS.timestamp_add,
  timestamp_diff: (call) => `toInt64(age(${datePartName(call, 2)}, ${arg(call, 1)}, ${arg(call, 0)}))`,
  timestamp_micros: (call) => fromMicros(`toInt64(${arg(call, 0)})`),
  timestamp_millis: (call) => fromMicros(`toInt64(${arg(call, 0)}) * 1000`),
  timestamp_seconds: (call) => fromMicros(`toInt64(${arg(call, 0)}) * 1000000`),
  timestamp_sub: PORTABLE_EMITTERS.timestamp_sub,
  timestamp_trunc: (call) => {
    const zone = zoneArg(call, 2);
    if (!zone) return asTimestamp(truncate(call, arg(call, 0)));
    // Truncate the wall-clock time in that zone, then read it back as an instant there.
    return `toTimeZone(toDateTime64(${truncate(call, `toTimeZone(${arg(call, 0)}, ${zone})`)}, 6, ${zone}), 'UTC')`;
  },
  unix_micros: (call) => `toUnixTimestamp64Micro(toDateTime64(${arg(call, 0)}, 6))`,
  unix_millis: (call) => `toInt64(floor(toUnixTimestamp64Micro(toDateTime64(${arg(call, 0)}, 6)) / 1000))`,
  unix_seconds: (call) => `toInt64(floor(toUnixTimestamp64Micro(toDateTime64(${arg(call, 0)}, 6)) / 1000000))`,
};
