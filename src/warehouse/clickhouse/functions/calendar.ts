/**
 * ClickHouse's calendar arithmetic with BigQuery's rules, for the date and time functions:
 * truncation (weeks starting on any weekday), differences (boundaries crossed for DATE, DATETIME
 * and TIME, whole units elapsed for TIMESTAMP), EXTRACT, and time zones (a name through
 * ClickHouse's zone functions, which take only a constant, a fixed offset as arithmetic).
 *
 * Types: TIMESTAMP is DateTime64(6, 'UTC'), DATETIME DateTime64(6) (the session zone, UTC, not
 * named), DATE Date32, TIME a DateTime64(6, 'Etc/UTC') on 1970-01-01 (ClickHouse has no type for
 * a time of day that its date functions read; results.ts tells the three apart by the zone). An
 * INTERVAL is a Tuple(Int64, Int64, Int64) of months, days and microseconds, as BigQuery keeps it.
 * The session runs with enable_extended_results_for_datetime_functions, so toStartOfMonth and the
 * like keep Date32 and DateTime64 (dates before 1970). ClickHouse's dates run from 1900 to 2299.
 */

import type { CallParts } from '../../../sql/emitters.ts';
import { FIXED_PART_MICROS } from '../../../sql/functions/families/time-parts.ts';
import type * as ir from '../../../sql/ir.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { parseZone, type Zone } from '../../../sql/time-zones.ts';
import { quoted as quoteString } from './shared.ts';

export const TIMESTAMP_TYPE = "DateTime64(6, 'UTC')";
export const DATETIME_TYPE = 'DateTime64(6)';
/** The zone that marks a DateTime64 as a TIME of day (results.ts reads it so). */
export const TIME_ZONE_MARK = 'Etc/UTC';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const weekdayNumber = (weekStart: string | undefined) => Math.max(0, WEEKDAYS.indexOf(weekStart ?? 'sunday'));


/** Floor division of Int64s by a positive constant (intDiv truncates toward zero). */
export const floorDivide = (value: string, divisor: number | string) => {
  // A constant past Int32 is a UInt64 to ClickHouse, and % of a negative Int64 by it wraps around.
  const by = `toInt64(${divisor})`;
  return `intDiv((${value}) - ((((${value}) % ${by}) + ${by}) % ${by}), ${by})`;
};

/** Microseconds since the epoch of a DateTime or DateTime64 (any zone). */
export const micros = (value: string) => `toUnixTimestamp64Micro(toDateTime64(${value}, 6))`;
/** Days since 1970-01-01 of a Date32. */
export const epochDays = (date: string) => `toInt64(toInt32(${date}))`;

export const timestampOf = (microseconds: string) => `fromUnixTimestamp64Micro(toInt64(${microseconds}), 'UTC')`;
export const datetimeOf = (microseconds: string) => `fromUnixTimestamp64Micro(toInt64(${microseconds}))`;
export const timeOf = (microsOfDay: string) => `fromUnixTimestamp64Micro(toInt64(${microsOfDay}), '${TIME_ZONE_MARK}')`;
export const dateOf = (days: string) => `addDays(toDate32('1970-01-01'), toInt64(${days}))`;

// ---- time zones ----------------------------------------------------------------------------

/** The zone at argument `index` (UTC when absent): ClickHouse's zone functions take a constant only. */
export function zoneArg(call: CallParts, index: number): Zone {
  const raw = call.raw[index];
  if (raw === undefined) return { kind: 'offset', minutes: 0 };
  if (raw.kind !== 'string') throw invalidSql('a time zone that is not a string literal is not supported on ClickHouse (its time zone functions take a constant)', 'at' in raw ? raw.at : undefined);
  const zone = parseZone(raw.value);
  if (!zone) throw invalidSql(`Invalid time zone: ${raw.value}`);
  return zone;
}

const offsetMicros = (minutes: number) => `${BigInt(minutes) * 60_000_000n}`;

/** A zone's offset from UTC at an instant (a TIMESTAMP), in seconds. */
function offsetSeconds(timestamp: string, zone: Zone): string {
  return zone.kind === 'offset' ? String(zone.minutes * 60) : `timeZoneOffset(toTimeZone(${timestamp}, ${quoteString(zone.name)}))`;
}

/** The wall clock (a DATETIME) of a TIMESTAMP in a zone. */
export function wallClock(timestamp: string, zone: Zone): string {
  if (zone.kind === 'offset') return datetimeOf(`${micros(timestamp)}${zone.minutes ? ` + ${offsetMicros(zone.minutes)}` : ''}`);
  return datetimeOf(`${micros(timestamp)} + ${offsetSeconds(timestamp, zone)} * 1000000`);
}

/** The TIMESTAMP at which a zone's clocks show a wall clock (a DATETIME). */
export function instantOf(wall: string, zone: Zone): string {
  if (zone.kind === 'offset') return timestampOf(`${micros(wall)}${zone.minutes ? ` - ${offsetMicros(zone.minutes)}` : ''}`);
  return timestampOf(micros(`toUTCTimestamp(toDateTime64(${wall}, 6), ${quoteString(zone.name)})`));
}

/** A zone's offset at an instant in minutes (for %z, %Z, TZH). */
export function offsetMinutesAt(timestamp: string, zone: Zone): string {
  return zone.kind === 'offset' ? String(zone.minutes) : `intDiv(${offsetSeconds(timestamp, zone)}, 60)`;
}

// ---- truncation ----------------------------------------------------------------------------

/** Days from the start of the week (starting on `weekStart`) to the day of `value`: 0 to 6. */
const daysIntoWeek = (value: string, weekStart: string | undefined) => `((toDayOfWeek(${value}, 3) - 1 + ${7 - weekdayNumber(weekStart)}) % 7)`;

/** The first day of the part holding a DATE (Date32). */
export function truncateDate(date: string, part: ir.DatePart, weekStart?: string): string {
  switch (part) {
    case 'day':
      return date;
    case 'week':
      return `subtractDays(${date}, ${daysIntoWeek(date, weekStart)})`;
    case 'isoweek':
      return `toMonday(${date})`;
    case 'month':
      return `toStartOfMonth(${date})`;
    case 'quarter':
      return `toStartOfQuarter(${date})`;
    case 'year':
      return `toStartOfYear(${date})`;
    case 'isoyear':
      return `toStartOfISOYear(${date})`;
    default:
      throw invalidSql(`DATE_TRUNC does not support the ${part.toUpperCase()} date part`);
  }
}

/** A DATETIME truncated to a part; fixed parts as arithmetic on its microseconds. */
export function truncateDatetime(value: string, part: ir.DatePart, weekStart?: string): string {
  const unit = FIXED_PART_MICROS[part];
  if (unit === 1) return value;
  if (unit !== undefined) return datetimeOf(`${floorDivide(micros(value), unit)} * ${unit}`);
  return `toDateTime64(${truncateDate(`toDate32(${value})`, part, weekStart)}, 6)`;
}

export function truncateTime(value: string, part: ir.DatePart): string {
  const unit = FIXED_PART_MICROS[part]!;
  return unit === 1 ? value : timeOf(`intDiv(${micros(value)}, ${unit}) * toInt64(${unit})`);
}

/** A TIMESTAMP truncated to a part of its civil time in a zone. */
export function truncateTimestamp(value: string, part: ir.DatePart, weekStart: string | undefined, zone: Zone): string {
  if (part === 'microsecond') return value;
  const unit = FIXED_PART_MICROS[part];
  if (unit !== undefined && zone.kind === 'offset' && zone.minutes === 0) return timestampOf(`${floorDivide(micros(value), unit)} * ${unit}`);
  return instantOf(truncateDatetime(wallClock(value, zone), part, weekStart), zone);
}

// ---- differences ---------------------------------------------------------------------------

const monthNumber = (value: string) => `(toInt64(toYear(${value})) * 12 + toMonth(${value}))`;

/** DATE_DIFF and DATETIME_DIFF: part boundaries crossed from `start` to `end` (dates or datetimes). */
export function boundariesBetween(end: string, start: string, type: 'DATE' | 'DATETIME' | 'TIME', part: ir.DatePart, weekStart?: string): string {
  const unit = FIXED_PART_MICROS[part];
  if (type === 'TIME' || (type === 'DATETIME' && unit !== undefined && part !== 'day')) {
    return `(${floorDivide(micros(end), unit!)} - ${floorDivide(micros(start), unit!)})`;
  }
  const day = (value: string) => (type === 'DATE' ? value : `toDate32(${value})`);
  switch (part) {
    case 'day':
      return `(${epochDays(day(end))} - ${epochDays(day(start))})`;
    case 'week':
    case 'isoweek':
      return `intDiv(${epochDays(truncateDate(day(end), part, weekStart))} - ${epochDays(truncateDate(day(start), part, weekStart))}, 7)`;
    case 'month':
      return `(${monthNumber(end)} - ${monthNumber(start)})`;
    case 'quarter':
      return `(intDiv(${monthNumber(end)} - 1, 3) - intDiv(${monthNumber(start)} - 1, 3))`;
    case 'year':
      return `(toInt64(toYear(${end})) - toYear(${start}))`;
    case 'isoyear':
      return `(toInt64(toISOYear(${end})) - toISOYear(${start}))`;
    default:
      throw invalidSql(`the ${part.toUpperCase()} date part is not supported here`);
  }
}

/** TIMESTAMP_DIFF: whole units elapsed, truncated toward zero. */
export function unitsElapsed(end: string, start: string, part: ir.DatePart): string {
  const unit = FIXED_PART_MICROS[part];
  if (unit === undefined) throw invalidSql(`TIMESTAMP_DIFF does not support the ${part.toUpperCase()} date part`);
  return `intDiv(${micros(end)} - ${micros(start)}, ${unit})`;
}

// ---- EXTRACT ---------------------------------------------------------------------------------

function weekOfYear(value: string, weekStart: string | undefined): string {
  const dayOfYear = `toInt64(toDayOfYear(${value}))`;
  const yearStartsOn = `((((toDayOfWeek(${value}, 3) - 1) - (${dayOfYear} - 1)) % 7 + 7) % 7)`;
  const firstWeekStart = `((${weekdayNumber(weekStart)} - ${yearStartsOn} + 7) % 7)`;
  return `intDiv(${dayOfYear} + 6 - ${firstWeekStart}, 7)`;
}

/** EXTRACT(part FROM value) by the value's type. */
export function extractPart(value: string, from: ir.ScalarTypeName | undefined, part: ir.DatePart, weekStart?: string): string {
  if (from === 'INTERVAL') return extractFromInterval(value, part);
  switch (part) {
    case 'microsecond':
      return `((${micros(value)} % toInt64(1000000) + 1000000) % 1000000)`;
    case 'millisecond':
      return `intDiv((${micros(value)} % toInt64(1000000) + 1000000) % 1000000, 1000)`;
    case 'second':
      return `toInt64(toSecond(${value}))`;
    case 'minute':
      return `toInt64(toMinute(${value}))`;
    case 'hour':
      return `toInt64(toHour(${value}))`;
    case 'day':
      return `toInt64(toDayOfMonth(${value}))`;
    case 'dayofweek':
      // BigQuery: 1 = Sunday … 7 = Saturday (ClickHouse mode 3).
      return `toInt64(toDayOfWeek(${value}, 3))`;
    case 'dayofyear':
      return `toInt64(toDayOfYear(${value}))`;
    case 'week':
      return weekOfYear(value, weekStart);
    case 'isoweek':
      return `toInt64(toISOWeek(${value}))`;
    case 'month':
      return `toInt64(toMonth(${value}))`;
    case 'quarter':
      return `toInt64(toQuarter(${value}))`;
    case 'year':
      return `toInt64(toYear(${value}))`;
    case 'isoyear':
      return `toInt64(toISOYear(${value}))`;
    case 'date':
      return `toDate32(${value})`;
  }
}

/** EXTRACT from an INTERVAL (months, days, microseconds): years and months of its months, hours of its time part. */
function extractFromInterval(value: string, part: ir.DatePart): string {
  const [months, days, us] = [`tupleElement(${value}, 1)`, `tupleElement(${value}, 2)`, `tupleElement(${value}, 3)`];
  switch (part) {
    case 'year':
      return `intDiv(${months}, 12)`;
    case 'month':
      return `(${months} % 12)`;
    case 'day':
      return days;
    case 'hour':
      return `intDiv(${us}, 3600000000)`;
    case 'minute':
      return `intDiv(${us} % toInt64(3600000000), 60000000)`;
    case 'second':
      return `intDiv(${us} % toInt64(60000000), 1000000)`;
    case 'millisecond':
      return `intDiv(${us} % toInt64(1000000), 1000)`;
    case 'microsecond':
      return `(${us} % toInt64(1000000))`;
    default:
      throw invalidSql(`EXTRACT from INTERVAL does not support the ${part.toUpperCase()} date part`);
  }
}
