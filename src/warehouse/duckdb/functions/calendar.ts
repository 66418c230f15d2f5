/**
 * DuckDB's calendar arithmetic with BigQuery's rules, for the date and time functions: truncation
 * to a part (weeks starting on any weekday), differences (boundaries crossed for DATE, DATETIME
 * and TIME, whole units elapsed for TIMESTAMP), EXTRACT, and time zones (names through ICU's
 * timezone(), fixed offsets as arithmetic on epoch microseconds, which ICU cannot read).
 *
 * Types: TIMESTAMP is TIMESTAMPTZ (the session runs in UTC), DATETIME is TIMESTAMP, DATE is DATE,
 * TIME is TIME. The wall clock of a TIMESTAMP in UTC is taken from its epoch microseconds
 * (make_timestamp(epoch_us(x))), which needs no ICU calendar call.
 */

import type { CallParts } from '../../../sql/emitters.ts';
import { FIXED_PART_MICROS } from '../../../sql/functions/families/time-parts.ts';
import type * as ir from '../../../sql/ir.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { OFFSET_ZONE, parseZone, type Zone } from '../../../sql/time-zones.ts';
import { quoted as quoteString } from './shared.ts';

export type Temporal = 'DATE' | 'DATETIME' | 'TIME' | 'TIMESTAMP';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const weekdayNumber = (weekStart: string | undefined) => Math.max(0, WEEKDAYS.indexOf(weekStart ?? 'sunday'));


// ---- time zones ----------------------------------------------------------------------------

/** A zone argument as the renderings use it: known when written as a literal, else SQL. */
export type ZoneArg = Zone | { kind: 'dynamic'; sql: string };

/** The zone at argument `index` (UTC when absent). A literal offset BigQuery refuses is refused at save. */
export function zoneArg(call: CallParts, index: number): ZoneArg {
  const raw = call.raw[index];
  if (raw === undefined) return { kind: 'offset', minutes: 0 };
  return zoneOf(raw, call.args[index]!);
}

export function zoneOf(raw: ir.Expr, printed: string): ZoneArg {
  if (raw.kind !== 'string') return { kind: 'dynamic', sql: printed };
  const zone = parseZone(raw.value);
  if (!zone) throw invalidSql(`Invalid time zone: ${raw.value}`);
  return zone;
}

const offsetMicros = (minutes: number) => `${BigInt(minutes) * 60_000_000n}`;

/** Minutes east of UTC of a zone written as an offset, from SQL text (NULL when it is a name). */
function dynamicOffsetMinutes(zone: string): string {
  const pattern = quoteString(OFFSET_ZONE.source);
  const group = (index: number) => `regexp_extract(${zone}, ${pattern}, ${index})`;
  return `(CASE WHEN ${group(1)} = '-' THEN -1 ELSE 1 END * (CAST(${group(2)} AS BIGINT) * 60 + coalesce(TRY_CAST(nullif(${group(3)}, '') AS BIGINT), 0)))`;
}

const isOffsetSql = (zone: string) => `regexp_full_match(${zone}, ${quoteString(OFFSET_ZONE.source)})`;

/** The wall clock (a DATETIME) of a TIMESTAMP in a zone. */
export function wallClock(timestamp: string, zone: ZoneArg): string {
  switch (zone.kind) {
    case 'offset':
      return `make_timestamp(epoch_us(${timestamp})${zone.minutes ? ` + ${offsetMicros(zone.minutes)}` : ''})`;
    case 'name':
      return `timezone(${quoteString(zone.name)}, ${timestamp})`;
    case 'dynamic':
      return `(CASE WHEN ${isOffsetSql(zone.sql)} THEN make_timestamp(epoch_us(${timestamp}) + ${dynamicOffsetMinutes(zone.sql)} * 60000000) ELSE timezone(${zone.sql}, ${timestamp}) END)`;
  }
}

/** The TIMESTAMP at which a zone's clocks show a wall clock (a DATETIME). */
export function instantOf(wall: string, zone: ZoneArg): string {
  switch (zone.kind) {
    case 'offset':
      return `make_timestamptz(epoch_us(${wall})${zone.minutes ? ` - ${offsetMicros(zone.minutes)}` : ''})`;
    case 'name':
      return `timezone(${quoteString(zone.name)}, ${wall})`;
    case 'dynamic':
      return `(CASE WHEN ${isOffsetSql(zone.sql)} THEN make_timestamptz(epoch_us(${wall}) - ${dynamicOffsetMinutes(zone.sql)} * 60000000) ELSE timezone(${zone.sql}, ${wall}) END)`;
  }
}

/** A zone's offset from UTC at an instant, in minutes (for %z and TZH). */
export function offsetMinutesAt(timestamp: string, zone: ZoneArg): string {
  if (zone.kind === 'offset') return String(zone.minutes);
  return `CAST((epoch_us(${wallClock(timestamp, zone)}) - epoch_us(${timestamp})) // 60000000 AS BIGINT)`;
}

// ---- truncation ----------------------------------------------------------------------------

/** Days from the start of the week (starting on `weekStart`) to the day of `value`: 0 to 6. */
const daysIntoWeek = (value: string, weekStart: string | undefined) => `((dayofweek(${value}) + ${7 - weekdayNumber(weekStart)}) % 7)`;

/** The first instant of the part holding a civil value (DATE or DATETIME), of the same type. */
export function truncateCivil(value: string, type: 'DATE' | 'DATETIME', part: ir.DatePart, weekStart?: string): string {
  const week = part === 'week' || part === 'isoweek';
  const start = part === 'isoweek' ? 'monday' : weekStart;
  if (type === 'DATE') {
    if (part === 'day') return value;
    if (week) return `(${value} - CAST(${daysIntoWeek(value, start)} AS INTEGER))`;
    return `CAST(date_trunc('${part}', ${value}) AS DATE)`;
  }
  if (part === 'microsecond') return value;
  if (week) return `(date_trunc('day', ${value}) - to_days(CAST(${daysIntoWeek(value, start)} AS BIGINT)))`;
  return `date_trunc('${part}', ${value})`;
}

/** TIME truncated to a part of the day. */
export function truncateTime(value: string, part: ir.DatePart): string {
  const unit = FIXED_PART_MICROS[part]!;
  return unit === 1 ? value : `(TIME '00:00:00' + to_microseconds(epoch_us(${value}) // ${unit} * ${unit}))`;
}

/** A TIMESTAMP truncated to a part of the civil time in a zone. */
export function truncateTimestamp(value: string, part: ir.DatePart, weekStart: string | undefined, zone: ZoneArg): string {
  if (part === 'microsecond') return value;
  return instantOf(truncateCivil(wallClock(value, zone), 'DATETIME', part, weekStart), zone);
}

// ---- differences ---------------------------------------------------------------------------

/** ISO 8601 week-numbering year. */
const isoYear = (value: string) => `isoyear(${value})`;

/**
 * DATE_DIFF, DATETIME_DIFF and TIME_DIFF: the part boundaries crossed from `start` to `end`
 * (DATETIME_DIFF(…, DAY) of 15:30 and 10:20 the next day is 1); weeks by their first day.
 */
export function boundariesBetween(end: string, start: string, type: 'DATE' | 'DATETIME' | 'TIME', part: ir.DatePart, weekStart?: string): string {
  if (type === 'TIME') {
    const unit = FIXED_PART_MICROS[part]!;
    return `(epoch_us(${end}) // ${unit} - epoch_us(${start}) // ${unit})`;
  }
  if (part === 'week' || part === 'isoweek') {
    const day = (value: string) => (type === 'DATE' ? value : `CAST(${value} AS DATE)`);
    const first = (value: string) => truncateCivil(day(value), 'DATE', part, weekStart);
    return `(date_diff('day', ${first(start)}, ${first(end)}) // 7)`;
  }
  if (part === 'isoyear') return `(${isoYear(end)} - ${isoYear(start)})`;
  return `date_diff('${part}', ${start}, ${end})`;
}

/** TIMESTAMP_DIFF: whole units elapsed, truncated toward zero (BigQuery's rule for instants). */
export function unitsElapsed(end: string, start: string, part: ir.DatePart): string {
  const unit = FIXED_PART_MICROS[part];
  if (unit === undefined) throw invalidSql(`TIMESTAMP_DIFF does not support the ${part.toUpperCase()} date part`);
  return `((epoch_us(${end}) - epoch_us(${start})) // ${unit})`;
}

// ---- EXTRACT ---------------------------------------------------------------------------------

/** Week number with weeks starting on `weekStart`; days before the year's first such day are week 0. */
function weekOfYear(value: string, weekStart: string | undefined): string {
  const yearStartsOn = `(((dayofweek(${value}) - dayofyear(${value}) + 1) % 7 + 7) % 7)`;
  const firstWeekStart = `((${weekdayNumber(weekStart)} - ${yearStartsOn} + 7) % 7)`;
  return `((dayofyear(${value}) + 6 - ${firstWeekStart}) // 7)`;
}

/** EXTRACT(part FROM value) of a value of type `from` (an INTERVAL, or a civil value or TIMESTAMP in UTC). */
export function extractPart(value: string, from: ir.ScalarTypeName | undefined, part: ir.DatePart, weekStart?: string): string {
  if (from === 'INTERVAL') return extractFromInterval(value, part);
  switch (part) {
    case 'dayofweek':
      // BigQuery: 1 = Sunday … 7 = Saturday; DuckDB dayofweek: 0 = Sunday.
      return `(dayofweek(${value}) + 1)`;
    case 'millisecond':
      // DuckDB's millisecond() counts the seconds of the minute too.
      return `(millisecond(${value}) % 1000)`;
    case 'microsecond':
      return `(microsecond(${value}) % 1000000)`;
    case 'week':
      return weekOfYear(value, weekStart);
    case 'isoweek':
      return `week(${value})`;
    case 'date':
      return `CAST(${value} AS DATE)`;
    default:
      return `${part}(${value})`;
  }
}

/** EXTRACT from an INTERVAL: years and months of its months, hours of its time part (not of its days). */
function extractFromInterval(value: string, part: ir.DatePart): string {
  switch (part) {
    case 'microsecond':
      return `(datepart('microseconds', ${value}) % 1000000)`;
    case 'millisecond':
      return `(datepart('milliseconds', ${value}) % 1000)`;
    default:
      return `datepart('${part}', ${value})`;
  }
}
